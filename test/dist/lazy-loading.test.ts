import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * What a start loads (docs/performance.md, Embedded footprint): the built package in a child
 * process of its own, so its module graph is only what the host and Faultline loaded. Every
 * module it loads is recorded: ES modules through a loader hook, CommonJS ones from the require
 * cache. prom-client, OpenTelemetry's API and the source-map tooling load on first use, not at
 * start.
 */
const root = resolve(import.meta.dirname, "../..");

/** Runs in the child: starts an instance (import, create, ready, an in-process call), then serves one request and a scrape. */
const host = `
import { createRequire, register } from "node:module";
const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => loaded.add(url));
port1.unref();
register("data:text/javascript," + encodeURIComponent(\`
  let port;
  export function initialize(data) { port = data.port; }
  export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
\`), { data: { port: port2 }, transferList: [port2] });
const require = createRequire(process.argv[2]);
const settle = () => new Promise((done) => setTimeout(done, 50)); // the hook's messages arrive
const snapshot = async () => {
  await settle();
  return [...loaded, ...Object.keys(require.cache)];
};
const build = process.argv[1];
const { createFaultline } = build === "cjs" ? require("./dist/index.cjs") : await import(new URL("dist/index.js", process.argv[2]));
const faultline = createFaultline({ database: "memory://", logger: { debug() {}, info() {}, warn() {}, error() {} } });
await faultline.ready();
await faultline.api.organizations.create({ slug: "lazy" });
const started = await snapshot();
const status = (await faultline.handler(new Request("http://localhost/api/0/organizations/lazy/"))).status;
const scrape = await (await faultline.metrics.handler()).text();
const served = await snapshot();
await faultline.close();
process.stdout.write(JSON.stringify({ started, served, status, scrape }));
`;

interface HostRun {
  started: string[];
  served: string[];
  status: number;
  scrape: string;
}

async function runHost(build: "esm" | "cjs"): Promise<HostRun> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "-e", host, build, `${pathToFileURL(root).href}/`],
    { cwd: root, timeout: 60_000, env: { ...process.env, DATABASE_URL: undefined } },
  );
  return JSON.parse(stdout) as HostRun;
}

const packages = (urls: string[], names: string[]) =>
  names.filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));

const LAZY = ["prom-client", "@opentelemetry/api", "@jridgewell/trace-mapping"];

describe.each(["esm", "cjs"] as const)("the built package (%s) loads its heavy parts on first use", (build) => {
  it("starts without prom-client, OpenTelemetry's API or the source-map tooling; metrics load with the first request", async () => {
    const run = await runHost(build);
    // The recording works: Faultline's own dependencies are seen at start.
    expect(packages(run.started, ["kysely", "zod", "tsyringe"])).toEqual(["kysely", "zod", "tsyringe"]);
    expect(packages(run.started, LAZY)).toEqual([]);
    expect(run.status).toBe(401);
    // prom-client with the first request (it requires OpenTelemetry's API itself); no source map yet.
    expect(packages(run.served, LAZY)).toEqual(["prom-client", "@opentelemetry/api"]);
    // Metrics registered before prom-client loaded are all in the first scrape, with their initial label sets.
    expect(run.scrape).toContain('faultline_http_request_duration_seconds_count{method="GET",route="/api/0/organizations/{organization_id_or_slug}/",status="401"} 1');
    expect(run.scrape).toContain('faultline_ingest_events_dropped_total{reason="rate_limited"} 0');
    expect(run.scrape).toContain("faultline_ingest_queue_depth");
  });
});
