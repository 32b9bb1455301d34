import { type ChildProcess, fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { runInTransaction } from "../../src/db/transaction.js";
import { OutboxToken } from "../../src/delivery/tokens.js";
import { createFaultline, type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { BENCH_DATABASE_URL, percentile, quietLogger, report, sqlClient } from "./support.js";

/**
 * Delivery throughput and latency with 1 and 4 worker processes on one PostgreSQL, to a local
 * receiver. Throughput: a backlog of deliveries drained as fast as possible, counted from the first
 * receipt to the last (worker start-up excluded). Latency: deliveries enqueued at a steady,
 * unsaturated rate, measured from the causing commit to receipt. CPU per delivery during the
 * drain — the worker processes' and PostgreSQL's — tells machines apart where throughput alone
 * cannot (on two shared cores the drain rate depends on everything else that runs).
 */
const BACKLOG = Number(process.env.BENCH_DELIVERY_BACKLOG ?? 10_000);
const STEADY_RATE = Number(process.env.BENCH_DELIVERY_RATE ?? 200);
const STEADY_SECONDS = 5;
const schemas: string[] = [];

afterAll(async () => {
  const client = await sqlClient();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function receiver() {
  const latencies: number[] = [];
  let count = 0;
  let first = 0;
  let last = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { committedAt: number } };
      latencies.push(Date.now() - body.data.committedAt);
      last = performance.now();
      if (count === 0) first = last;
      count++;
      res.writeHead(200).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    latencies,
    count: () => count,
    /** Receipts per second from the first to the last (worker start-up excluded). */
    rate: () => (count - 1) / ((last - first) / 1000),
    reset: () => {
      latencies.length = 0;
      count = 0;
    },
    until: async (target: number) => {
      while (count < target) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function enqueue(
  faultline: Faultline<FaultlineApi>,
  organizationId: number,
  appId: number,
  url: string,
  secret: string,
  count: number,
) {
  const db = faultline.container.resolve(tokens.Db);
  const outbox = faultline.container.resolve(OutboxToken);
  await runInTransaction(db, (scope) =>
    outbox.enqueue(
      scope,
      Array.from({ length: count }, () => ({
        organizationId,
        destinationType: "app" as const,
        destinationId: String(appId),
        url,
        secret,
        eventType: "issue.created",
        resource: "issue",
        // The commit happens right after; the payload carries when, for the latency measure.
        body: () => ({ action: "created", data: { committedAt: Date.now() } }),
      })),
    ),
  );
}

function startWorkers(n: number, schema: string): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: n }, () => {
      const child = fork(new URL("./delivery-worker.mjs", import.meta.url).pathname, [BENCH_DATABASE_URL, schema], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      return new Promise<ChildProcess>((resolve) => child.once("message", () => resolve(child)));
    }),
  );
}

/** The worker processes' CPU time so far, in µs. */
async function workersCpu(children: ChildProcess[]): Promise<number> {
  const times = await Promise.all(
    children.map(
      (child) =>
        new Promise<number>((resolve) => {
          child.once("message", (message: { cpu: number }) => resolve(message.cpu));
          child.send("cpu");
        }),
    ),
  );
  return times.reduce((sum, time) => sum + time, 0);
}

/** CPU time of every PostgreSQL process on this machine so far, in µs; null where /proc cannot tell. */
function postgresCpu(): number | null {
  const USER_HZ = 100;
  let ticks = 0;
  let found = false;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // the process ended meanwhile
    }
    // "pid (comm) state ppid …": utime, stime, cutime, cstime are fields 14–17 (the postmaster's
    // cutime/cstime hold the backends that have ended).
    const [comm, rest] = [
      stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
      stat.slice(stat.lastIndexOf(")") + 2).split(" "),
    ];
    if (comm !== "postgres") continue;
    found = true;
    ticks += Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
  }
  return found ? (ticks / USER_HZ) * 1e6 : null;
}

async function stopWorkers(children: ChildProcess[]) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          child.once("exit", resolve);
          child.send("stop");
        }),
    ),
  );
}

/**
 * `requestLog: false` turns the request log's INSERT into a no-op inside PostgreSQL (a rule), with
 * everything else unchanged: the difference to the same run with it is what the request-log row
 * costs per delivery — the most a capped per-app buffer could save (#14 point 5).
 */
async function scenario(workers: number, { requestLog = true } = {}) {
  const schema = `bench_delivery_${workers}_${requestLog ? "log" : "nolog"}_${Date.now()}`;
  schemas.push(schema);
  const sink = await receiver();
  const faultline = createFaultline({
    database: BENCH_DATABASE_URL,
    schema,
    logger: quietLogger,
    worker: false,
    delivery: { allowPrivateNetworks: true },
  });
  try {
    const org = await faultline.api.organizations.create({ slug: "bench" });
    const app = await faultline.api.apps.create({
      organization: "bench",
      name: "Sink",
      slug: "sink",
      webhookUrl: sink.url,
      events: ["issue"],
    });
    const appId = Number(
      (
        await faultline.container
          .resolve(tokens.Db)
          .selectFrom("apps")
          .select("id")
          .where("uuid", "=", app.uuid)
          .executeTakeFirstOrThrow()
      ).id,
    );
    if (!requestLog) {
      const client = await sqlClient();
      await client.query(
        `CREATE RULE discard_request_log AS ON INSERT TO "${schema}".app_request_log DO INSTEAD NOTHING`,
      );
      await client.end();
    }
    for (let i = 0; i < BACKLOG; i += 1000)
      await enqueue(faultline, Number(org.id), appId, sink.url, app.clientSecret, Math.min(1000, BACKLOG - i));
    const children = await startWorkers(workers, schema);
    const [workerCpuBefore, postgresCpuBefore] = [await workersCpu(children), postgresCpu()];
    await sink.until(BACKLOG);
    const throughput = sink.rate();
    const workerCpu = (await workersCpu(children)) - workerCpuBefore;
    const postgresCpuAfter = postgresCpu();
    const databaseCpu =
      postgresCpuBefore === null || postgresCpuAfter === null ? null : postgresCpuAfter - postgresCpuBefore;
    sink.reset();
    const steadyTotal = STEADY_RATE * STEADY_SECONDS;
    for (let sent = 0; sent < steadyTotal; sent += STEADY_RATE / 20) {
      await enqueue(faultline, Number(org.id), appId, sink.url, app.clientSecret, STEADY_RATE / 20);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await sink.until(steadyTotal);
    await stopWorkers(children);
    return {
      "worker processes": workers,
      "request log": requestLog ? "written" : "discarded",
      "backlog deliveries/s": Math.round(throughput),
      "worker CPU µs/delivery": Math.round(workerCpu / BACKLOG),
      "PostgreSQL CPU µs/delivery": databaseCpu === null ? "n/a" : Math.round(databaseCpu / BACKLOG),
      [`p50 ms at ${STEADY_RATE}/s`]: percentile(sink.latencies, 50).toFixed(0),
      [`p99 ms at ${STEADY_RATE}/s`]: percentile(sink.latencies, 99).toFixed(0),
    };
  } finally {
    await sink.close();
    await faultline.close();
  }
}

it("delivery throughput and commit-to-receipt latency", async () => {
  const rows = [await scenario(1), await scenario(1, { requestLog: false }), await scenario(4)];
  report(`Webhook delivery to a local receiver, backlog of ${BACKLOG}`, rows);
  expect(rows).toHaveLength(3);
});
