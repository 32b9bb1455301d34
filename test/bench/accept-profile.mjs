// Where the queued accept path spends its CPU (#14): runs a Faultline host (dist/, queued ingest,
// worker off so only accepting is measured) under `--cpu-prof` in a child process, drives it with
// the open-loop-free closed-loop client of this directory (32 clients, 20,000 single-event
// envelopes, 50 fingerprints) from another process, and attributes every profile sample to the
// stage of the request it belongs to (the outermost stage function on its stack).
// `npm run build && node test/bench/accept-profile.mjs [postgres-url]` prints a markdown table.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
const url =
  process.argv[2] ??
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const EVENTS = 20_000;

/** Stages in request order; a sample belongs to the first whose function is on its stack (root first). */
const STAGES = [
  ["DSN key and rate checks", (f) => f.functionName === "authenticate" || f.functionName === "consume"],
  [
    "normalise, validate, fingerprint (zod, grouping)",
    (f) => f.functionName === "normalize" || f.functionName === "normalizeEvent",
  ],
  ["queued text (derived fields serialised, payload text spliced)", (f) => f.functionName === "queuedText"],
  [
    "decompress and parse the envelope",
    (f) => ["parseEnvelope", "eventsOf", "decompressBody", "parseEventPayload"].includes(f.functionName),
  ],
  [
    "group commit: the INSERT (pg client, array encoding)",
    (f) =>
      f.functionName === "#append" ||
      f.functionName === "executeQuery" ||
      f.url.includes("/pg/lib/") ||
      f.url.includes("pg-protocol"),
  ],
  [
    "reply: rendered and written to node:http",
    (f) => ["sendReply", "sendWebResponse", "wireReplyOf", "finish", "replyToResponse"].includes(f.functionName),
  ],
  [
    "request: node:http → Request, routing, pipeline",
    (f) => ["toWebRequest", "route", "handle", "match"].includes(f.functionName),
  ],
  [
    "node:http parsing and sockets",
    (f) =>
      f.url.startsWith("node:_http") ||
      f.url.startsWith("node:net") ||
      f.url.startsWith("node:internal/stream") ||
      f.functionName === "writev",
  ],
  ["garbage collector", (f) => f.functionName === "(garbage collector)"],
];

const profileDir = mkdtempSync(join(tmpdir(), "faultline-accept-profile-"));
const server = spawn(
  process.execPath,
  [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, "--input-type=module", "-e", serverScript()],
  { stdio: ["ignore", "pipe", "inherit"] },
);
try {
  const info = await new Promise((resolve, reject) => {
    server.stdout.once("data", (chunk) => resolve(JSON.parse(String(chunk))));
    server.once("exit", (code) => reject(new Error(`server exited (${code})`)));
  });
  const client = spawn(
    process.execPath,
    [
      join(here, "post-client.mjs"),
      `http://127.0.0.1:${info.port}/api/${info.projectId}/envelope/?sentry_key=${info.key}&sentry_version=7`,
      "32",
      String(EVENTS),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  client.stdout.on("data", (chunk) => (output += chunk));
  await new Promise((resolve) => client.once("exit", resolve));
  const { rps } = JSON.parse(output);
  server.kill("SIGINT");
  await new Promise((resolve) => server.once("exit", resolve));
  const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
  printBreakdown(JSON.parse(readFileSync(join(profileDir, file), "utf8")), rps);
} finally {
  server.kill("SIGKILL");
  rmSync(profileDir, { recursive: true, force: true });
}

function serverScript() {
  return `
    import { createServer } from "node:http";
    import { createFaultline, tokens } from ${JSON.stringify(join(root, "dist/index.js"))};
    import { toNodeHandler } from ${JSON.stringify(join(root, "dist/node.js"))};
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const schema = "bench_accept_" + Date.now();
    const faultline = createFaultline({ database: ${JSON.stringify(url)}, schema, logger: quiet, worker: false, ingest: { queued: true, maxQueueDepth: 10_000_000 } });
    await faultline.api.organizations.create({ slug: "bench" });
    const project = await faultline.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
    const handler = toNodeHandler(faultline);
    const server = createServer((req, res) => void handler(req, res));
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    process.stdout.write(JSON.stringify({ port: server.address().port, key: project.keys[0].public, projectId: project.id }) + "\\n");
    process.once("SIGINT", async () => {
      server.close();
      await faultline.container.resolve(tokens.Db).schema.dropSchema(schema).cascade().execute().catch(() => {});
      await faultline.close();
      process.exit(0);
    });`;
}

function printBreakdown(profile, rps) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]);
    const delta = profile.timeDeltas[i] ?? 0;
    if (leaf.callFrame.functionName === "(idle)" || leaf.callFrame.functionName === "(program)") continue;
    const stack = [];
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) stack.unshift(byId.get(id).callFrame);
    const stage = STAGES.find(([, matches]) => stack.some(matches))?.[0] ?? "other (timers, promises, module loading)";
    totals.set(stage, (totals.get(stage) ?? 0) + delta);
    busy += delta;
  }
  const lines = [
    `accept path: ${rps} events/s acknowledged; server CPU ${(busy / 1000 / EVENTS).toFixed(3)} ms per event`,
    "",
    "| stage | share of server CPU | µs per event |",
    "|---|---|---|",
  ];
  for (const [stage, time] of [...totals].sort((a, b) => b[1] - a[1]))
    lines.push(`| ${stage} | ${((100 * time) / busy).toFixed(1)} % | ${Math.round(time / EVENTS)} |`);
  process.stdout.write(`${lines.join("\n")}\n`);
}
