// Where the digest stage spends its time (#14): fills the ingest queue of a Faultline host (dist/,
// queued ingest, worker off) with 20,000 single-event envelopes through its own handler, then
// digests them with `worker.runDue("ingest.digest")` — the same measure as "digest alone" in
// ingest.bench.ts — while recording three things:
// - the Node process's CPU profile (node:inspector), each sample attributed to the digest step
//   whose function is outermost on its stack, and idle samples counted as waiting on PostgreSQL;
// - every SQL statement's round trip (wall time from the pg client's `query` to its result),
//   grouped by statement;
// - the CPU PostgreSQL's processes used meanwhile (/proc, every `postgres` process of this
//   machine: run it on an otherwise idle database).
// `npm run build && node test/bench/digest-profile.mjs [fingerprints=50] [postgres-url]` prints markdown.
import { readdirSync, readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchEnvelope } from "./bench-envelope.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fingerprints = Number(process.argv[2] ?? 50);
const url =
  process.argv[3] ??
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 20_000);

/** Digest steps; a sample belongs to the first (outermost) whose function is on its stack. */
const STEPS = [
  ["claim: SELECT … FOR UPDATE SKIP LOCKED, JSON.parse of queued events", ["storableEvent", "claim"]],
  ["payload processors (symbolication lookup)", ["#process"]],
  [
    "assign issues (hash lookup, new issues, short ids)",
    ["assignIssues", "lookupHashes", "createIssues", "reserveShortNumbers", "claimHashes", "adoptWinners"],
  ],
  ["insert events (rows, multi-row INSERT)", ["insertEvents", "eventRow"]],
  ["insert users", ["insertUsers"]],
  ["release bookkeeping", ["releaseRows", "createReleases", "countReleases", "releaseFirstSeen"]],
  ["fold issues (counters, regressions, snooze)", ["foldIssue", "snoozeWindowCounts"]],
  ["update issues (one statement)", ["updateIssues"]],
  ["upsert stats", ["upsertStats"]],
  ["insert facets (tags)", ["insertFacets"]],
  ["activities", ["insertActivities"]],
  ["domain events and their subscribers", ["emitDomainEvents"]],
  ["delete claimed queue rows, commit", ["remove", "runInTransaction"]],
];
const stepOf = new Map(STEPS.flatMap(([step, names]) => names.map((name) => [name, step])));

/** CPU time (user + system) of every `postgres` process, in ms (Linux /proc). */
function postgresCpuMs() {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Times every statement of the pg driver Faultline loads (the same module instance) by its normalised text. */
function timeStatements() {
  const { Client } = createRequire(join(root, "package.json"))("pg");
  const byStatement = new Map();
  let recording = false;
  const original = Client.prototype.query;
  Client.prototype.query = function (config, values, callback) {
    const result = original.call(this, config, values, callback);
    if (!recording || typeof result?.then !== "function") return result;
    const text = typeof config === "string" ? config : config.text;
    const key = text
      .replace(/\$\d+/g, "?")
      .replace(/\(\?(, \?)*\)(, \(\?(, \?)*\))*/g, "(…)")
      .replace(/\s+/g, " ")
      .slice(0, 90);
    const started = performance.now();
    return result.then((value) => {
      const entry = byStatement.get(key) ?? { calls: 0, ms: 0 };
      entry.calls += 1;
      entry.ms += performance.now() - started;
      byStatement.set(key, entry);
      return value;
    });
  };
  return { byStatement, start: () => (recording = true), stop: () => (recording = false) };
}

const statements = timeStatements();
const { createFaultline, tokens } = await import(join(root, "dist/index.js"));
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const schema = `bench_digest_profile_${Date.now()}`;
const faultline = createFaultline({
  database: url,
  schema,
  logger: quiet,
  worker: false,
  ingest: { queued: true, maxQueueDepth: 10_000_000 },
});
try {
  await faultline.api.organizations.create({ slug: "bench" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
  const endpoint = `http://bench.test/api/${project.id}/envelope/?sentry_key=${project.keys[0].public}&sentry_version=7`;
  // Queue the events through the accept path, 64 at a time (as the HTTP benchmarks' clients do).
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < EVENTS) {
        const response = await faultline.handler(
          new Request(endpoint, { method: "POST", body: benchEnvelope(next++, fingerprints).body }),
        );
        if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
      }
    }),
  );

  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  const pgBefore = postgresCpuMs();
  const cpuBefore = process.cpuUsage();
  statements.start();
  await session.post("Profiler.start");
  const started = performance.now();
  await faultline.worker.runDue("ingest.digest");
  const wallMs = performance.now() - started;
  const { profile } = await session.post("Profiler.stop");
  statements.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const pgMs = postgresCpuMs() - pgBefore;
  session.disconnect();

  const { rows } = await faultline.container
    .resolve(tokens.Db)
    .selectFrom("events")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow()
    .then((row) => ({ rows: Number(row.n) }));
  if (rows !== EVENTS) throw new Error(`${rows} events stored, ${EVENTS} queued`);
  print(profile, { wallMs, nodeMs: (cpu.user + cpu.system) / 1000, pgMs });
} finally {
  await faultline.container
    .resolve(tokens.Db)
    .schema.dropSchema(schema)
    .cascade()
    .execute()
    .catch(() => {});
  await faultline.close();
}

function print(profile, { wallMs, nodeMs, pgMs }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map();
  /** With DIGEST_PROFILE_STEP=<start of a step's name>: that step's functions by self time. */
  const selfTimes = new Map();
  let sampled = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]);
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    sampled += delta;
    let step;
    if (leaf.callFrame.functionName === "(idle)") step = "idle: waiting on PostgreSQL";
    else if (leaf.callFrame.functionName === "(garbage collector)") step = "garbage collector";
    else {
      const stack = [];
      for (let id = leaf.id; id !== undefined; id = parent.get(id)) stack.unshift(byId.get(id).callFrame);
      step = stack.map((frame) => stepOf.get(frame.functionName)).find(Boolean);
      if (
        !step &&
        stack.some(
          (frame) =>
            frame.url.includes("/pg/lib/") || frame.url.includes("pg-protocol") || frame.url.includes("/pg-types/"),
        )
      )
        step = "pg driver outside a step (reading results)";
      step ??= "other (promise plumbing, Kysely compile outside a step)";
    }
    totals.set(step, (totals.get(step) ?? 0) + delta);
    if (process.env.DIGEST_PROFILE_STEP && step.startsWith(process.env.DIGEST_PROFILE_STEP)) {
      const name = `${leaf.callFrame.functionName || "(anonymous)"} ${leaf.callFrame.url.split("/").slice(-2).join("/")}:${leaf.callFrame.lineNumber}`;
      selfTimes.set(name, (selfTimes.get(name) ?? 0) + delta);
    }
  }
  const perEvent = (ms) => `${Math.round((ms * 1000) / EVENTS)}`;
  const lines = [
    `digest alone, ${fingerprints} fingerprint(s), ${EVENTS} events: ${Math.round(EVENTS / (wallMs / 1000))} events/s; wall ${perEvent(wallMs)} µs/event, Node CPU ${perEvent(nodeMs)} µs/event, PostgreSQL CPU ${perEvent(pgMs)} µs/event`,
    "",
    "| Node main thread (CPU profile) | share of wall time | µs per event |",
    "|---|---|---|",
    ...[...totals]
      .sort((a, b) => b[1] - a[1])
      .map(([step, ms]) => `| ${step} | ${((100 * ms) / sampled).toFixed(1)} % | ${perEvent(ms)} |`),
    "",
    "| statement (round trip: Node → PostgreSQL → Node) | calls | share of wall time | µs per event |",
    "|---|---|---|---|",
    ...[...statements.byStatement]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 16)
      .map(
        ([text, { calls, ms }]) =>
          `| \`${text.replaceAll("|", "\\|")}\` | ${calls} | ${((100 * ms) / wallMs).toFixed(1)} % | ${perEvent(ms)} |`,
      ),
  ];
  if (selfTimes.size > 0) {
    lines.push("", `| ${process.env.DIGEST_PROFILE_STEP}…: function (self time) | µs per event |`, "|---|---|");
    for (const [name, ms] of [...selfTimes].sort((a, b) => b[1] - a[1]).slice(0, 15))
      lines.push(`| \`${name}\` | ${perEvent(ms)} |`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
