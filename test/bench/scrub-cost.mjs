// What data scrubbing costs the accept path (docs/data-scrubbing.md, "Cost"): a Faultline host
// (dist/, queued ingest, worker off so only accepting is measured) takes the same ~7.6 KB
// envelope through `faultline.handler` (32 requests in flight), in alternating rounds with the
// project's scrubbing off and on, and prints the median CPU microseconds per accepted event.
// Two events: a clean one (nothing matches: the walk only) and one with secrets in it (the walk,
// the copy, `_meta`, and the text serialised again).
// `npm run build && node test/bench/scrub-cost.mjs [postgres-url]` (embedded PGlite without one).
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildSync } from "esbuild";
import { createFaultline } from "../../dist/index.js";
import { benchEvent } from "./bench-envelope.mjs";

const url = process.argv[2];
const PER_ROUND = 1500;
const ROUNDS = 5;

/** benchEvent plus what real SDK events carry: breadcrumbs, request, contexts, deeper frames. */
function realisticEvent(i, secrets) {
  const event = benchEvent(i, 50);
  const frames = Array.from({ length: 10 }, (_, n) => ({
    filename: `/app/node_modules/framework/lib/layer${n}.js`,
    abs_path: `/app/node_modules/framework/lib/layer${n}.js`,
    function: `Layer.handle${n}`,
    module: `framework.lib.layer${n}`,
    lineno: 100 + n,
    colno: 12,
    in_app: n > 7,
    pre_context: ["  const next = stack[index++];", "  if (!next) return done();"],
    context_line: "  return next.handle(req, res, callNext);",
    post_context: ["}", ""],
    vars: { index: n, path: `/orders/${i}`, ...(secrets && n === 9 ? { api_key: "sk_live_abcdef123456" } : {}) },
  }));
  event.exception.values[0].stacktrace.frames = frames;
  event.breadcrumbs = {
    values: Array.from({ length: 12 }, (_, n) => ({
      timestamp: Date.now() / 1000 - n,
      category: n % 2 ? "http" : "console",
      level: "info",
      message: `GET /api/orders/${n} responded 200 in ${n * 3} ms`,
      data: { method: "GET", url: `https://shop.example.com/api/orders/${n}`, status_code: 200 },
    })),
  };
  event.request = {
    url: "https://shop.example.com/api/orders",
    method: "POST",
    headers: {
      "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Safari/537.36",
      Accept: "application/json",
      "Accept-Language": "en-GB,en;q=0.9",
      ...(secrets ? { Authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature", Cookie: "sid=abc123" } : {}),
    },
    data: { items: [{ sku: "A-1", qty: 2 }], note: secrets ? "card 4111 1111 1111 1111" : "leave at the door" },
  };
  event.contexts = {
    os: { name: "Linux", version: "6.8.0" },
    runtime: { name: "node", version: "v20.18.0" },
    trace: { trace_id: randomUUID().replaceAll("-", ""), span_id: randomUUID().slice(0, 16) },
  };
  event.extra = { orderId: i, retries: 0, ...(secrets ? { password: "hunter2" } : {}) };
  return event;
}

const faultline = createFaultline({
  database: url ?? { inMemory: true },
  worker: false,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
await faultline.ready();
await faultline.api.organizations.create({ slug: "bench" });
const owner = await faultline.api.users.create({ username: "bench-owner" });
await faultline.api.members.add({ organization: "bench", user: owner.id, role: "owner" });
const project = await faultline.api.projects.create({ organization: "bench", slug: "web", platform: "node" });
const key = project.keys[0].public;
const token = (await faultline.api.tokens.create({ user: owner.id, scopes: ["project:write", "project:read"] })).token;

async function setScrubbing(on) {
  const response = await faultline.handler(
    new Request("http://localhost/api/0/projects/bench/web/", {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ dataScrubber: on }),
    }),
  );
  if (response.status !== 200) throw new Error(`PUT settings: ${response.status}`);
}

function envelopeOf(event) {
  return `${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}`;
}

/** CPU time (user + system, this process: the host's thread and PGlite) per accepted event, 32 requests in flight. */
async function round(secrets) {
  const bodies = Array.from({ length: PER_ROUND }, (_, i) => envelopeOf(realisticEvent(i, secrets)));
  const cpu = process.cpuUsage();
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const response = await faultline.handler(
        new Request(`http://localhost/api/${project.id}/envelope/?sentry_key=${key}`, { method: "POST", body }),
      );
      if (response.status !== 200) throw new Error(`envelope: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, client));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / PER_ROUND;
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bytes = Buffer.byteLength(JSON.stringify(realisticEvent(1, false)));
console.log(
  `event: ${bytes} bytes (clean), ${Buffer.byteLength(JSON.stringify(realisticEvent(1, true)))} (with secrets)`,
);
const results = { "clean, off": [], "clean, on": [], "secrets, off": [], "secrets, on": [] };
await round(false); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const on of [false, true]) {
    await setScrubbing(on);
    results[`clean, ${on ? "on" : "off"}`].push(await round(false));
    results[`secrets, ${on ? "on" : "off"}`].push(await round(true));
  }
}
console.log("| event, scrubbing | CPU µs per accepted event (median of rounds) | rounds |");
console.log("| --- | --- | --- |");
for (const [name, values] of Object.entries(results))
  console.log(`| ${name} | ${median(values).toFixed(0)} | ${values.map((v) => v.toFixed(0)).join(", ")} |`);
await faultline.close();

// scrubEvent alone (the sources, bundled here: it is not part of the package's API), on the parsed event.
const bundle = join(mkdtempSync(join(tmpdir(), "scrub-cost-")), "scrub.mjs");
buildSync({
  entryPoints: [new URL("../../src/plugins/data-scrubbing/scrub.ts", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile: bundle,
});
const { scrubEvent } = await import(pathToFileURL(bundle).href);
const ON = {
  dataScrubber: true,
  dataScrubberDefaults: true,
  scrubIPAddresses: false,
  sensitiveFields: [],
  safeFields: [],
};
for (const secrets of [false, true]) {
  const events = Array.from({ length: 2000 }, (_, i) => JSON.parse(JSON.stringify(realisticEvent(i, secrets))));
  for (const event of events) scrubEvent(event, ON); // warm-up
  const timings = [];
  for (let r = 0; r < 5; r++) {
    const started = process.hrtime.bigint();
    for (const event of events) scrubEvent(event, ON);
    timings.push(Number(process.hrtime.bigint() - started) / 1000 / events.length);
  }
  console.log(
    `scrubEvent alone, ${secrets ? "with secrets" : "clean"}: ${median(timings).toFixed(1)} µs per event (median of 5 × 2000)`,
  );
}
