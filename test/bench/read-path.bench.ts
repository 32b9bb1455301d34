import { afterAll, expect, it } from "vitest";
import { createFaultline, SCOPES } from "../../src/index.js";
import { BENCH_DATABASE_URL, percentile, quietLogger, report, runConcurrently, sqlClient } from "./support.js";

/**
 * Read path (#14 point 4): server CPU per request of GET single issue and of the organization
 * issue list (100 issues with 24h stats), measured in-process (`faultline.handler`, no HTTP), so
 * the CPU is Faultline's and its driver's. With BENCH_READ_PATH_BASELINE set to another checkout's
 * `src/index.ts`, that build serves the same schema too, alternated run by run with this one, so
 * "before" and "after" come from the same run.
 */
const REQUESTS = Number(process.env.BENCH_READ_PATH_REQUESTS ?? 400);
const ROUNDS = Number(process.env.BENCH_READ_PATH_ROUNDS ?? 3);
const CONCURRENCY = 4;
const schema = `bench_read_path_${Date.now()}`;

afterAll(async () => {
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

interface Handler {
  handler(request: Request): Promise<Response>;
  close(): Promise<void>;
}

async function seed(): Promise<{
  token: string;
  issueId: string;
  close(): Promise<void>;
  handler: Handler["handler"];
}> {
  const faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  const org = await faultline.api.organizations.create({ slug: "bench" });
  const owner = await faultline.api.users.create({ username: "bench" });
  await faultline.api.members.add({ organization: "bench", user: owner.id, role: "owner" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
  const { token } = await faultline.api.tokens.create({ user: owner.id, scopes: [...SCOPES] });
  const client = await sqlClient();
  const s = `"${schema}"`;
  try {
    await client.query(
      `INSERT INTO ${s}.issues (organization_id, project_id, short_number, type, title, culprit, message, level, platform, metadata, status, substatus, first_seen, last_seen, times_seen, user_count, assignee_user_id)
       SELECT $1, $2, g, 'error', 'BenchError: failure ' || g, 'handler' || g || '(app.js)', 'failure ' || g, 'error', 'node', '{"type":"BenchError"}',
              'unresolved', 'ongoing', now() - interval '20 days', date_trunc('milliseconds', now() - g * interval '1 second'), 30, 3,
              CASE WHEN g % 3 = 0 THEN $3::int END
       FROM generate_series(1, 1000) AS g`,
      [Number(org.id), Number(project.id), Number(owner.id)],
    );
    await client.query(`UPDATE ${s}.projects SET next_short_id = 1001 WHERE id = $1`, [Number(project.id)]);
    await client.query(
      `INSERT INTO ${s}.issue_stats_hourly (issue_id, bucket, count) SELECT id, date_trunc('hour', now()) - k * interval '1 hour', 3 FROM ${s}.issues, generate_series(0, 5) AS k`,
    );
    await client.query(
      `INSERT INTO ${s}.issue_stats_daily (issue_id, bucket, count) SELECT id, date_trunc('day', now()) - k * interval '1 day', 9 FROM ${s}.issues, generate_series(0, 9) AS k`,
    );
    await client.query(
      `INSERT INTO ${s}.issue_user_state (issue_id, user_id, is_bookmarked, is_subscribed, has_seen) SELECT id, $1, id % 2 = 0, true, true FROM ${s}.issues`,
      [Number(owner.id)],
    );
    const { rows } = await client.query(`SELECT max(id)::text AS id FROM ${s}.issues`);
    const issueId = rows[0].id as string;
    await client.query(
      `INSERT INTO ${s}.issue_activity (organization_id, issue_id, type, data, user_id, date_created)
       SELECT $1, $2, 'note', jsonb_build_object('text', 'note ' || g), $3, now() - g * interval '1 minute' FROM generate_series(1, 20) AS g`,
      [Number(org.id), Number(issueId), Number(owner.id)],
    );
    await client.query(`ANALYZE`);
    return { token, issueId, handler: (request) => faultline.handler(request), close: () => faultline.close() };
  } finally {
    await client.end();
  }
}

/** Server CPU µs per request and latency of `REQUESTS` calls of `path`, `CONCURRENCY` at a time. */
async function measure(serve: Handler["handler"], path: string, token: string) {
  const call = async () => {
    const response = await serve(new Request(`http://bench${path}`, { headers: { authorization: `Bearer ${token}` } }));
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 20; i++) await call();
  const durations: number[] = [];
  const cpu = process.cpuUsage();
  await runConcurrently(REQUESTS, CONCURRENCY, async () => {
    const started = performance.now();
    await call();
    durations.push(performance.now() - started);
  });
  const used = process.cpuUsage(cpu);
  return { cpuMicros: (used.user + used.system) / REQUESTS, p50: percentile(durations, 50) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

it("read path: server CPU per request, GET issue and the list of 100 issues with stats", async () => {
  const seeded = await seed();
  const builds: Array<{ name: string; handler: Handler["handler"]; close(): Promise<void> }> = [
    { name: "this build", handler: seeded.handler, close: seeded.close },
  ];
  const baselinePath = process.env.BENCH_READ_PATH_BASELINE;
  if (baselinePath) {
    const baseline = (await import(baselinePath)) as { createFaultline: typeof createFaultline };
    const other = baseline.createFaultline({
      database: BENCH_DATABASE_URL,
      schema,
      logger: quietLogger,
      worker: false,
      autoMigrate: false,
    });
    builds.unshift({ name: "baseline", handler: (request) => other.handler(request), close: () => other.close() });
  }
  const operations = [
    ["GET issue", `/api/0/organizations/bench/issues/${seeded.issueId}/`],
    ["GET issue list (100, 24h stats)", "/api/0/organizations/bench/issues/?limit=100&statsPeriod=24h"],
  ] as const;
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const [operation, path] of operations) {
      const samples = new Map(builds.map((build) => [build.name, { cpu: [] as number[], p50: [] as number[] }]));
      for (let round = 0; round < ROUNDS; round++) {
        // Alternated (A B, B A, …): whatever else the cores do drifts over the run.
        const order = round % 2 === 0 ? builds : [...builds].reverse();
        for (const build of order) {
          const result = await measure(build.handler, path, seeded.token);
          samples.get(build.name)?.cpu.push(result.cpuMicros);
          samples.get(build.name)?.p50.push(result.p50);
        }
      }
      for (const build of builds) {
        const sample = samples.get(build.name) as { cpu: number[]; p50: number[] };
        rows.push({
          operation,
          build: build.name,
          "CPU µs/req (median of rounds)": Math.round(median(sample.cpu)),
          "p50 ms": median(sample.p50).toFixed(2),
        });
      }
    }
  } finally {
    for (const build of builds) await build.close();
  }
  report(
    `Read path, in-process, ${REQUESTS} requests × ${ROUNDS} rounds, concurrency ${CONCURRENCY} (measured under contention)`,
    rows,
  );
  expect(rows.length).toBeGreaterThan(0);
});
