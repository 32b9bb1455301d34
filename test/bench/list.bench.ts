import { afterAll, expect, it } from "vitest";
import { createFaultline, SCOPES } from "../../src/index.js";
import { serveFaultline } from "../helpers/server.js";
import { BENCH_DATABASE_URL, percentile, quietLogger, report, sqlClient } from "./support.js";

/**
 * Issue list latency (default org list: is:unresolved, lastSeen, 24h stats) on page 1 and on page
 * 20 by cursor, with 10k events over 1k issues and with 1M events over 100k issues. Data is
 * generated in SQL. Baseline: the bare keyset query in raw SQL on the same data.
 */
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 60);
const schemas: string[] = [];

afterAll(async () => {
  const client = await sqlClient();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function seed(schema: string, organizationId: number, projectId: number, issues: number, events: number) {
  const client = await sqlClient();
  const s = `"${schema}"`;
  try {
    await client.query(
      `INSERT INTO ${s}.issues (organization_id, project_id, short_number, type, title, culprit, message, level, platform, metadata, status, substatus, first_seen, last_seen, times_seen, user_count)
       SELECT $1, $2, g, 'error', 'BenchError: failure ' || g, 'handler' || g || '(app.js)', 'failure ' || g, 'error', 'node', '{}',
              CASE WHEN g % 10 = 0 THEN 'resolved' ELSE 'unresolved' END, 'ongoing',
              date_trunc('milliseconds', now() - interval '30 days' + (g * interval '1 second')),
              date_trunc('milliseconds', now() - (g % 86400) * interval '1 second'),
              $4::bigint / $3, 1
       FROM generate_series(1, $3::int) AS g`,
      [organizationId, projectId, issues, events],
    );
    await client.query(`UPDATE ${s}.projects SET next_short_id = $1 WHERE id = $2`, [issues + 1, projectId]);
    const { rows } = await client.query(`SELECT min(id)::bigint AS first FROM ${s}.issues WHERE project_id = $1`, [
      projectId,
    ]);
    const first = Number(rows[0].first);
    await client.query(
      `INSERT INTO ${s}.events (organization_id, project_id, issue_id, event_id, timestamp, received, level, platform, type, title, culprit, message, user_key, tags, hashes, size, payload)
       SELECT $1, $2, $3 + (g % $4), md5(g::text), now() - (g % 86400) * interval '1 second', now(), 'error', 'node', 'error',
              'BenchError: failure', 'handler(app.js)', 'failure', 'id:' || (g % 1000), '[["region","eu"]]', ARRAY[md5((g % $4)::text)], 300,
              jsonb_build_object('message', 'failure ' || g)
       FROM generate_series(1, $5::int) AS g`,
      [organizationId, projectId, first, issues, events],
    );
    await client.query(
      `INSERT INTO ${s}.issue_stats_hourly (issue_id, bucket, count)
       SELECT id, date_trunc('hour', now()) - (k * interval '1 hour'), 3 FROM ${s}.issues, generate_series(0, 2) AS k`,
    );
    await client.query(`ANALYZE ${s}.issues`);
    await client.query(`ANALYZE ${s}.events`);
    await client.query(`ANALYZE ${s}.issue_stats_hourly`);
  } finally {
    await client.end();
  }
}

async function timed(samples: number, call: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < 5; i++) await call();
  const durations: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await call();
    durations.push(performance.now() - started);
  }
  return durations;
}

async function measure(label: string, issues: number, events: number) {
  const schema = `bench_list_${issues}_${Date.now()}`;
  schemas.push(schema);
  const faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  const org = await faultline.api.organizations.create({ slug: "bench" });
  const owner = await faultline.api.users.create({ username: "bench" });
  await faultline.api.members.add({ organization: "bench", user: owner.id, role: "owner" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "api" });
  const { token } = await faultline.api.tokens.create({ user: owner.id, scopes: [...SCOPES] });
  const seedStarted = performance.now();
  await seed(schema, Number(org.id), Number(project.id), issues, events);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const server = await serveFaultline(faultline);
  const headers = { Authorization: `Bearer ${token}` };
  try {
    const firstUrl = `${server.url}/api/0/organizations/bench/issues/`;
    let url = firstUrl;
    for (let page = 1; page < 20; page++) {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      url = /<([^>]+)>; rel="next"; results="true"/.exec(response.headers.get("link") ?? "")?.[1] ?? url;
    }
    const page20Url = url;
    const get = (target: string) => async () => {
      const response = await fetch(target, { headers });
      if (response.status !== 200) throw new Error(`list answered ${response.status}`);
      await response.arrayBuffer();
    };
    const page1 = await timed(SAMPLES, get(firstUrl));
    const page20 = await timed(SAMPLES, get(page20Url));
    const client = await sqlClient();
    const raw = await timed(SAMPLES, async () => {
      await client.query(
        `SELECT * FROM "${schema}".issues WHERE organization_id = $1 AND status = 'unresolved' AND deleted_at IS NULL ORDER BY last_seen DESC, id DESC LIMIT 101`,
        [Number(org.id)],
      );
    });
    await client.end();
    return {
      data: label,
      "seed s": seedSeconds.toFixed(1),
      "page 1 p50 ms": percentile(page1, 50).toFixed(1),
      "page 1 p95 ms": percentile(page1, 95).toFixed(1),
      "page 20 p50 ms": percentile(page20, 50).toFixed(1),
      "page 20 p95 ms": percentile(page20, 95).toFixed(1),
      "raw SQL p95 ms": percentile(raw, 95).toFixed(2),
      "page 1 p95 / raw": (percentile(page1, 95) / percentile(raw, 95)).toFixed(1),
    };
  } finally {
    await server.close();
    await faultline.close();
  }
}

it("issue list latency at 10k and 1M events", async () => {
  const small = await measure("10k events / 5k issues", 5_000, 10_000);
  const large = await measure("1M events / 100k issues", 100_000, 1_000_000);
  report("Issue list (default query, 100 per page, 24h stats), " + SAMPLES + " samples", [small, large]);
  process.stdout.write(
    `p95 page 1 at 1M / at 10k: ${(Number(large["page 1 p95 ms"]) / Number(small["page 1 p95 ms"])).toFixed(2)}×\n`,
  );
  expect(Number(large["page 1 p95 ms"])).toBeGreaterThan(0);
});
