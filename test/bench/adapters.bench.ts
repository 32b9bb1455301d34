import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { promisify } from "node:util";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { toFastifyPlugin } from "../../adapters/fastify/index.js";
import { toNodeHandler } from "../../adapters/node/index.js";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { EventSinkToken } from "../../src/plugins/event-store/index.js";
import { listen, type RunningServer } from "../helpers/server.js";
import { BENCH_DATABASE_URL, quietLogger, report, sqlClient } from "./support.js";

/**
 * Adapter overhead: requests/s and p99 of GET single issue and GET org issue list through each
 * adapter, against (1) a bare hello route in the same framework (its ceiling) and (2) a bare
 * route in the same framework doing the same work — it calls `faultline.handler` with a
 * hand-made Request and writes the text out, so the same queries run without the adapter's
 * translation. adapter / direct is the adapter's cost (target ≥ 90 %). The load generator runs
 * in its own process (test/bench/load-client.mjs), keep-alive, BENCH_ADAPTER_CONCURRENCY clients.
 * Besides requests/s (which drift with whatever else the two cores do), the server process's own
 * CPU time per request is measured: the steadier measure of what the adapter adds.
 */
const SECONDS = Number(process.env.BENCH_ADAPTER_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_ADAPTER_CONCURRENCY ?? 32);
const schema = `bench_adapters_${Date.now()}`;
let faultline: Faultline<FaultlineApi>;
let token: string;
let issueId: string;
const servers: RunningServer[] = [];

beforeAll(async () => {
  faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  const org = await faultline.api.organizations.create({ slug: "bench" });
  const owner = await faultline.api.users.create({ username: "bench-owner" });
  await faultline.api.members.add({ organization: "bench", user: owner.id, role: "owner" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
  token = (await faultline.api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
  const sink = faultline.container.resolve(EventSinkToken);
  for (let i = 0; i < 300; i++) {
    const exception = {
      values: [
        {
          type: "BenchError",
          value: `failure ${i % 100}`,
          stacktrace: { frames: [{ function: `handler${i % 100}`, filename: "app.js", in_app: true }] },
        },
      ],
    };
    await sink.capture(
      { id: Number(project.id), organizationId: Number(org.id), platform: "node" },
      { level: "error", platform: "node", exception },
      {},
    );
  }
  const [issue] = await faultline.api.issues.list(
    { params: { organization_id_or_slug: "bench" }, query: { limit: "1" } },
    { token },
  );
  issueId = issue?.id as string;
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await faultline?.close();
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

interface Load {
  rps: number;
  p99: number;
  errors: number;
  requests: number;
  warmup: number;
  cpuMicrosPerRequest: number;
}

async function load(url: string): Promise<Load> {
  const client = new URL("./load-client.mjs", import.meta.url).pathname;
  const args = [
    client,
    url,
    String(CONCURRENCY),
    String(SECONDS),
    JSON.stringify({ authorization: `Bearer ${token}` }),
  ];
  const cpu = process.cpuUsage();
  const { stdout } = await promisify(execFile)(process.execPath, args);
  const used = process.cpuUsage(cpu);
  const result = JSON.parse(stdout) as Omit<Load, "cpuMicrosPerRequest">;
  // The client's warm-up is served too: CPU is divided over every request served.
  const served = result.requests + result.errors + result.warmup;
  return { ...result, cpuMicrosPerRequest: (used.user + used.system) / served };
}

/** The "direct" route: the same Faultline work, called without an adapter. */
async function direct(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const response = await faultline.handler(
    new Request(`http://bench${req.url}`, { headers: { authorization: String(req.headers.authorization) } }),
  );
  res.writeHead(response.status, { "content-type": "application/json; charset=utf-8" }).end(await response.text());
}
const hello = (_req: IncomingMessage, res: ServerResponse) =>
  void res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}');

/** Each framework with three routes: /hello, /direct/… (no adapter) and /fl/… (the adapter). */
async function frameworks(): Promise<Array<{ name: string; url: string }>> {
  const nodeAdapter = toNodeHandler(faultline, { basePath: "/fl" });
  const node: RequestListener = (req, res) => {
    if (req.url === "/hello") return hello(req, res);
    if (req.url?.startsWith("/direct/")) return void direct(Object.assign(req, { url: req.url.slice(7) }), res);
    void nodeAdapter(req, res);
  };
  const app = express();
  app.get("/hello", (req, res) => hello(req, res));
  app.use("/direct", (req, res) => void direct(req, res));
  app.use("/fl", toExpressHandler(faultline));
  const fastify = Fastify();
  fastify.get("/hello", async () => ({ hello: "world" }));
  fastify.get("/direct/*", async (request, reply) => {
    const response = await faultline.handler(
      new Request(`http://bench${request.url.slice(7)}`, {
        headers: { authorization: String(request.headers.authorization) },
      }),
    );
    return reply
      .code(response.status)
      .header("content-type", "application/json; charset=utf-8")
      .send(await response.text());
  });
  await fastify.register(toFastifyPlugin(faultline), { prefix: "/fl" });
  const out = [];
  for (const [name, listener] of [
    ["node:http", node],
    ["express", app],
  ] as const) {
    const server = await listen(createServer(listener as RequestListener));
    servers.push(server);
    out.push({ name, url: server.url });
  }
  out.push({ name: "fastify", url: await fastify.listen({ port: 0, host: "127.0.0.1" }) });
  servers.push({ url: "", close: () => fastify.close() });
  return out;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
/** The run with the median requests/s. */
const median = (runs: Load[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)] as Load;

it("adapter overhead: each adapter against its bare framework", async () => {
  const rows: Array<Record<string, string | number>> = [];
  const pct = (a: number, b: number) => `${Math.round((100 * a) / b)} %`;
  for (const { name, url } of await frameworks()) {
    const ceiling = await load(`${url}/hello`);
    for (const [operation, path] of [
      ["GET issue", `/api/0/organizations/bench/issues/${issueId}/`],
      ["GET issue list", "/api/0/organizations/bench/issues/?query="],
    ] as const) {
      // Alternated (bare, adapter, adapter, bare, bare, adapter), median of three each: background load drifts.
      const bareRuns: Load[] = [];
      const adapterRuns: Load[] = [];
      for (const order of ["ba", "ab", "ba"]) {
        for (const which of order)
          (which === "b" ? bareRuns : adapterRuns).push(
            await load(`${url}${which === "b" ? "/direct" : "/fl"}${path}`),
          );
      }
      const [bare, adapter] = [median(bareRuns), median(adapterRuns)];
      const cpu = (runs: Load[]) => medianOf(runs.map((run) => run.cpuMicrosPerRequest));
      expect([...bareRuns, ...adapterRuns].map((run) => run.errors)).toEqual([0, 0, 0, 0, 0, 0]);
      rows.push({
        framework: name,
        operation,
        "hello req/s": Math.round(ceiling.rps),
        "bare req/s": Math.round(bare.rps),
        "adapter req/s": Math.round(adapter.rps),
        "bare p99 ms": bare.p99.toFixed(1),
        "adapter p99 ms": adapter.p99.toFixed(1),
        "adapter / bare": pct(adapter.rps, bare.rps),
        "bare CPU µs/req": Math.round(cpu(bareRuns)),
        "adapter CPU µs/req": Math.round(cpu(adapterRuns)),
        "bare / adapter CPU": pct(cpu(bareRuns), cpu(adapterRuns)),
        "adapter / hello": pct(adapter.rps, ceiling.rps),
      });
    }
  }
  report(`Adapter overhead (${CONCURRENCY} keep-alive clients, ${SECONDS} s per row)`, rows);
}, 900_000);
