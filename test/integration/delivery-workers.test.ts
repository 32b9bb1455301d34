import { type ChildProcess, fork } from "node:child_process";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { DestinationRegistryToken } from "../../src/delivery/tokens.js";
import { createFaultline, type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { createTestInstance, pickBackend } from "../../src/testing/index.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";
import { bundleFixture } from "../helpers/bundle.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { type ReceivedRequest, startReceiver } from "../helpers/receiver.js";
import { silentLogger } from "../../src/logging/logger.js";
import { sleep, waitFor } from "../helpers/wait.js";

/**
 * Delivery with real workers (platform §5.3): a worker killed mid-send loses nothing, and two
 * workers on one database send each delivery exactly once. Both need several database sessions
 * on one server, so both run on PostgreSQL only; PGlite (one in-process connection) keeps the
 * stop-variant tests of delivery.test.ts.
 */
const { backend } = await pickBackend();
const onPostgres = backend !== "pglite";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const idOf = (request: ReceivedRequest) => String(request.headers["webhook-id"]);

/** An organization, a project and an app subscribed to `error` whose webhook is the receiver. */
async function seed(faultline: Faultline<FaultlineApi>, receiverUrl: string) {
  const { api } = faultline;
  const org = await api.organizations.create({ slug: "acme" });
  const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  const app = await api.apps.create({
    organization: "acme",
    name: "Tracker",
    slug: "tracker",
    isInternal: true,
    webhookUrl: `${receiverUrl}/app`,
    events: ["error"],
  });
  return { app, capture: captureFor(faultline, { id: project.id, organizationId: org.id }) };
}

/** Forks the bundled worker and waits for its "ready"; rejects if it exits first. */
async function startWorkerProcess(file: string, args: string[]): Promise<ChildProcess> {
  const child = fork(file, args, { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code, signal) =>
      reject(new Error(`delivery worker exited before ready (code ${code}, signal ${signal})`)),
    );
  });
  return child;
}

/** Tags every request an instance's engine sends with `x-test-sender`, so the receiver sees who sent what. */
function tagSender(faultline: Pick<Faultline, "container">, name: string): void {
  const registry = faultline.container.resolve(DestinationRegistryToken);
  const get = registry.get.bind(registry);
  registry.get = (type) => {
    const handler = get(type);
    return {
      ...handler,
      headers: (delivery, timestamp) => ({ ...handler.headers(delivery, timestamp), "x-test-sender": name }),
    };
  };
}

describe.skipIf(!onPostgres)(
  "crash safety (PostgreSQL only: the worker runs in a child process; PGlite is in-process)",
  { timeout: 30_000 },
  () => {
    it("a worker SIGKILLed while its POSTs are in flight loses nothing: after the lease a new instance sends the same deliveries again", async () => {
      const timeoutMs = 10_000;
      const leaseMs = timeoutMs + 30_000;
      const bundle = await bundleFixture("delivery-worker");
      cleanups.push(bundle.remove);
      const receiver = await startReceiver([], { holding: true });
      cleanups.push(receiver.close);
      const seeder = await createTestInstance({
        announce: false,
        worker: false,
        logger: silentLogger,
        delivery: { allowPrivateNetworks: true },
      });
      cleanups.push(seeder.close);
      const { app, capture } = await seed(seeder.faultline, receiver.url);
      for (let i = 0; i < 3; i++) await capture(errorEvent({ fingerprint: [`crash-${i}`] }));
      const db = seeder.faultline.container.resolve(tokens.Db);
      const rows = () => db.selectFrom("deliveries").selectAll().orderBy("id").execute();
      const ids = (await rows()).map((row) => row.id);
      expect(ids).toHaveLength(3);

      // A worker in another process claims all three and POSTs them; the receiver holds them open.
      const beforeClaim = Date.now();
      const child = await startWorkerProcess(bundle.file, [
        seeder.database as string,
        seeder.schema,
        String(timeoutMs),
      ]);
      await receiver.until((all) => all.length === 3, 10_000);
      const afterArrival = Date.now();
      const gone = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once("exit", (_code, signal) => resolve(signal)),
      );
      expect(child.kill("SIGKILL")).toBe(true);
      expect(await gone).toBe("SIGKILL");

      const first = [...receiver.received];
      expect(first.map(idOf).sort()).toEqual(ids);
      // Claimed under a lease of timeoutMs + 30 s, attempt counted, no outcome recorded.
      for (const row of await rows()) {
        expect(row).toMatchObject({ status: "pending", attempts: 1, last_response_code: null, date_finished: null });
        const claimedAt = row.last_attempt_at?.getTime() ?? Number.NaN;
        expect(claimedAt).toBeGreaterThanOrEqual(beforeClaim);
        expect(claimedAt).toBeLessThanOrEqual(afterArrival);
        expect(row.next_attempt_at.getTime() - claimedAt).toBe(leaseMs);
      }

      // A new instance, its clock just short of the lease's end: nothing is due, nothing is sent.
      let ahead = leaseMs - 20_000;
      const clock = { now: () => new Date(Date.now() + ahead) };
      const next = createFaultline({
        database: seeder.database,
        schema: seeder.schema,
        logger: silentLogger,
        clock,
        delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, timeoutMs },
      });
      cleanups.push(() => next.close());
      receiver.release();
      await next.ready();
      await next.worker.runDue("delivery.send");
      await sleep(100);
      expect(receiver.received).toHaveLength(3);

      // Past the lease, its worker sends every one of them again: same id, same bytes, valid signatures.
      ahead = leaseMs + 1_000;
      await receiver.until((all) => all.length >= 6);
      await waitFor(async () => (await rows()).every((row) => row.status === "delivered"));
      const again = receiver.received.slice(3);
      expect(again.map(idOf).sort()).toEqual(ids);
      for (const request of [...first, ...again]) {
        const sentAt = new Date(Number(request.headers["webhook-timestamp"]) * 1000);
        expect(request.headers["request-id"]).toBe(idOf(request));
        expect(verifySignature(request.body, request.headers["svc-hook-signature"] as string, app.clientSecret)).toBe(
          true,
        );
        expect(verifyStandardWebhook(request.body, request.headers, app.clientSecret, { now: sentAt })).toBe(true);
      }
      for (const request of again) {
        const original = first.find((r) => idOf(r) === idOf(request));
        expect(request.body).toBe(original?.body);
        expect(
          Number(request.headers["webhook-timestamp"]) - Number(original?.headers["webhook-timestamp"]),
        ).toBeGreaterThanOrEqual(leaseMs / 1000);
      }
      for (const row of await rows())
        expect(row).toMatchObject({ status: "delivered", attempts: 2, last_response_code: 200 });
      expect(receiver.received).toHaveLength(6);
    });
  },
);

describe.skipIf(!onPostgres)(
  "two workers on one database (PostgreSQL only: PGlite is one in-process connection, not a shared server)",
  { timeout: 30_000 },
  () => {
    it("send each of 200 deliveries exactly once, and both workers send some", async () => {
      const total = 200;
      // Each answer takes 30 ms, so neither worker can drain the queue alone before the other claims.
      const receiver = await startReceiver(Array.from({ length: total }, () => ({ status: 200, delayMs: 30 })));
      cleanups.push(receiver.close);
      const delivery = { allowPrivateNetworks: true, pollIntervalMs: 20, concurrency: 4 };
      const first = await createTestInstance({ announce: false, logger: silentLogger, delivery });
      cleanups.push(first.close);
      const second = createFaultline({
        database: first.database,
        schema: first.schema,
        logger: silentLogger,
        delivery,
      });
      cleanups.push(() => second.close());
      await second.ready();
      expect(first.faultline.worker.started && second.worker.started).toBe(true);
      tagSender(first.faultline, "first");
      tagSender(second, "second");

      const { capture } = await seed(first.faultline, receiver.url);
      await Promise.all(Array.from({ length: total }, (_, i) => capture(errorEvent({ fingerprint: [`both-${i}`] }))));
      const db = first.faultline.container.resolve(tokens.Db);
      const rows = () => db.selectFrom("deliveries").selectAll().execute();
      await waitFor(async () => (await rows()).every((row) => row.status !== "pending"));

      const stored = await rows();
      expect(stored).toHaveLength(total);
      for (const row of stored)
        expect(row).toMatchObject({ status: "delivered", attempts: 1, last_response_code: 200 });
      const counts = new Map<string, number>();
      for (const request of receiver.received) counts.set(idOf(request), (counts.get(idOf(request)) ?? 0) + 1);
      expect([...counts.keys()].sort()).toEqual(stored.map((row) => row.id).sort());
      expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      expect(receiver.received).toHaveLength(total);

      const bySender = { first: 0, second: 0 };
      for (const request of receiver.received) bySender[request.headers["x-test-sender"] as "first" | "second"] += 1;
      expect(bySender.first + bySender.second).toBe(total);
      expect(bySender.first).toBeGreaterThan(0);
      expect(bySender.second).toBeGreaterThan(0);
    });
  },
);

describe.skipIf(!onPostgres)(
  "disabling a destination that another session is changing (PostgreSQL only: two sessions)",
  { timeout: 30_000 },
  () => {
    it("a 410 does not deadlock with a transaction that holds the app, then its deliveries (as deleting or moving an app does)", async () => {
      const receiver = await startReceiver([410]);
      cleanups.push(receiver.close);
      const instance = await createTestInstance({
        announce: false,
        worker: false,
        logger: silentLogger,
        delivery: { allowPrivateNetworks: true },
      });
      cleanups.push(instance.close);
      const { app, capture } = await seed(instance.faultline, receiver.url);
      await capture(errorEvent({ fingerprint: ["gone"] }));
      const db = instance.faultline.container.resolve(tokens.Db);
      const [delivery] = await db.selectFrom("deliveries").select("id").execute();
      const { id: appId } = await db
        .selectFrom("apps")
        .select("id")
        .where("uuid", "=", app.uuid)
        .executeTakeFirstOrThrow();

      const other = new pg.Client({ connectionString: instance.database as string });
      await other.connect();
      cleanups.push(() => other.end());
      // This session gives up on a lock cycle at once (the engine's session would wait the default
      // second): were the engine to hold the delivery row while waiting for the app, this session's
      // UPDATE below would fail with a deadlock.
      await other.query("SET deadlock_timeout = '10ms'");
      await other.query("BEGIN");
      await other.query(`SELECT id FROM "${instance.schema}".apps WHERE id = $1 FOR UPDATE`, [appId]);

      const sending = instance.faultline.worker.runDue("delivery.send");
      // Wait until the engine's session is blocked by this one (other test files share the database).
      const pid = (await other.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
      await waitFor(
        async () =>
          (await other.query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [pid]))
            .rowCount !== 0,
      );
      // The engine waits for the app row to disable it; its outcome is already committed.
      expect(
        await db
          .selectFrom("deliveries")
          .select(["status", "last_response_code"])
          .where("id", "=", delivery?.id as string)
          .executeTakeFirstOrThrow(),
      ).toEqual({ status: "failed", last_response_code: 410 });
      await other.query(
        `UPDATE "${instance.schema}".deliveries SET status = 'cancelled' WHERE id = $1 AND status = 'pending'`,
        [delivery?.id],
      );
      await other.query("COMMIT");
      await sending;

      expect(
        await db.selectFrom("apps").select("webhook_status").where("id", "=", appId).executeTakeFirstOrThrow(),
      ).toEqual({ webhook_status: "disabled" });
      expect(receiver.received).toHaveLength(1);
    });
  },
);
