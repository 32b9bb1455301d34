import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/schema.js";
import { createFaultline, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { outboxRow } from "../helpers/deliveries.js";
import { startReceiver } from "../helpers/receiver.js";
import { sleep } from "../helpers/wait.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

const dbOf = (instance: TestInstance): Kysely<Database> => instance.faultline.container.resolve(tokens.Db);

/** A finished (or pending, `finishedAgo` null) delivery row, aged against the instance's clock. */
interface SeedRow {
  label: string;
  status: "pending" | "delivered" | "failed" | "cancelled";
  createdAgo: number;
  finishedAgo: number | null;
}

async function seedDeliveries(
  instance: TestInstance,
  organizationId: number,
  now: Date,
  rows: SeedRow[],
): Promise<Map<string, string>> {
  const ids = new Map(rows.map((row) => [randomUUID(), row.label]));
  const at = (ago: number) => new Date(now.getTime() - ago);
  await dbOf(instance)
    .insertInto("deliveries")
    .values(
      [...ids.keys()].map((id, i) => {
        const row = rows[i] as SeedRow;
        return outboxRow({
          id,
          organization_id: organizationId,
          status: row.status,
          attempts: row.status === "pending" ? 3 : 1,
          // A pending row waits for its next retry (not due now, so no test here sends it).
          next_attempt_at: row.status === "pending" ? new Date(now.getTime() + 3_600_000) : at(row.finishedAgo ?? 0),
          last_attempt_at: at(row.createdAgo - MINUTE),
          date_created: at(row.createdAgo),
          date_finished: row.finishedAgo === null ? null : at(row.finishedAgo),
        });
      }),
    )
    .execute();
  return ids;
}

async function remaining(instance: TestInstance, ids: Map<string, string>): Promise<string[]> {
  const rows = await dbOf(instance)
    .selectFrom("deliveries")
    .select("id")
    .where("id", "in", [...ids.keys()])
    .execute();
  return rows.map((row) => ids.get(row.id) as string).sort();
}

describe("delivery upkeep on a fixed clock: retention, the request log, the connect-time guard", () => {
  let now = new Date("2026-06-01T12:00:00.000Z");
  const clock = { now: () => now };
  let instance: TestInstance;
  let configured: TestInstance;
  let organizationId: number;
  let configuredOrganizationId: number;

  beforeAll(async () => {
    // No worker: the retention task runs when a test asks (runDue), on a clock the test moves.
    [instance, configured] = await Promise.all([
      createTestInstance({ worker: false, clock }),
      createTestInstance({ announce: false, worker: false, clock, delivery: { retentionDays: 7 } }),
    ]);
    organizationId = Number((await instance.faultline.api.organizations.create({ slug: "acme" })).id);
    configuredOrganizationId = Number((await configured.faultline.api.organizations.create({ slug: "acme" })).id);
  });
  afterAll(async () => {
    await instance?.close();
    await configured?.close();
  });

  it("prunes delivered, failed and cancelled rows after 30 days by default; pending rows never", async () => {
    const ids = await seedDeliveries(instance, organizationId, now, [
      { label: "delivered-inside", status: "delivered", createdAgo: 30 * DAY, finishedAgo: 30 * DAY - MINUTE },
      { label: "failed-inside", status: "failed", createdAgo: 31 * DAY, finishedAgo: 30 * DAY - MINUTE },
      { label: "delivered-old", status: "delivered", createdAgo: 31 * DAY, finishedAgo: 30 * DAY + MINUTE },
      { label: "failed-old", status: "failed", createdAgo: 34 * DAY, finishedAgo: 31 * DAY },
      { label: "cancelled-old", status: "cancelled", createdAgo: 40 * DAY, finishedAgo: 40 * DAY },
      { label: "pending-ancient", status: "pending", createdAgo: 90 * DAY, finishedAgo: null },
      { label: "pending-recent", status: "pending", createdAgo: DAY, finishedAgo: null },
    ]);
    await instance.faultline.worker.runDue("delivery.retention");
    expect(await remaining(instance, ids)).toEqual([
      "delivered-inside",
      "failed-inside",
      "pending-ancient",
      "pending-recent",
    ]);

    // Two minutes later the rows that were one minute inside the window are out of it.
    now = new Date(now.getTime() + 2 * MINUTE);
    await instance.faultline.worker.runDue("delivery.retention");
    expect(await remaining(instance, ids)).toEqual(["pending-ancient", "pending-recent"]);
  });

  it("honours delivery.retentionDays", async () => {
    const ids = await seedDeliveries(configured, configuredOrganizationId, now, [
      { label: "delivered-inside", status: "delivered", createdAgo: 7 * DAY, finishedAgo: 7 * DAY - MINUTE },
      { label: "delivered-old", status: "delivered", createdAgo: 8 * DAY, finishedAgo: 7 * DAY + MINUTE },
      { label: "failed-old", status: "failed", createdAgo: 20 * DAY, finishedAgo: 20 * DAY },
      { label: "pending-ancient", status: "pending", createdAgo: 90 * DAY, finishedAgo: null },
    ]);
    await configured.faultline.worker.runDue("delivery.retention");
    expect(await remaining(configured, ids)).toEqual(["delivered-inside", "pending-ancient"]);
  });

  it("trims each app's request log to its newest 100 requests plus the newest 100 errors of each event type", async () => {
    const { api } = instance.faultline;
    const db = dbOf(instance);
    await api.apps.create({ organization: "acme", name: "Busy", slug: "busy" });
    await api.apps.create({ organization: "acme", name: "Quiet", slug: "quiet" });
    const appId = async (slug: string) =>
      (await db.selectFrom("apps").select("id").where("slug", "=", slug).executeTakeFirstOrThrow()).id;
    const [busy, quiet] = [await appId("busy"), await appId("quiet")];
    const start = now.getTime() - DAY;
    const row = (app: number, second: number, eventType: string, code: number) => ({
      app_id: app,
      organization_id: organizationId,
      delivery_id: randomUUID(),
      attempt: 1,
      event_type: eventType,
      webhook_url: "http://example.test/",
      response_code: code,
      is_error: code < 200 || code >= 300,
      request_body: "{}",
      response_body: "",
      date_created: new Date(start + second * 1000),
    });
    // Oldest to newest. The quiet app's 3 rows are older than all of the busy app's: a log trimmed
    // across apps instead of per app would drop them.
    const seeded = [
      ...Array.from({ length: 3 }, (_, i) => ({ group: "quiet", index: i, ...row(quiet, i, "issue.created", 200) })),
      ...Array.from({ length: 120 }, (_, i) => ({
        group: "busy-errors",
        index: i,
        ...row(busy, 100 + i, "issue.created", 500),
      })),
      ...Array.from({ length: 5 }, (_, i) => ({
        group: "busy-timeouts",
        index: i,
        ...row(busy, 300 + i, "comment.created", 0),
      })),
      ...Array.from({ length: 130 }, (_, i) => ({
        group: "busy-ok",
        index: i,
        ...row(busy, 400 + i, "issue.created", 200),
      })),
    ];
    const inserted = await db
      .insertInto("app_request_log")
      .values(seeded.map(({ group: _group, index: _index, ...values }) => values))
      .returning(["id", "date_created"])
      .execute();
    const idAt = new Map(inserted.map((r) => [r.date_created.getTime(), String(r.id)]));
    const ids = (entries: typeof seeded) =>
      entries.map((entry) => idAt.get(entry.date_created.getTime()) as string).sort();
    const expected = ids(
      seeded.filter(
        (entry) =>
          entry.group === "quiet" ||
          entry.group === "busy-timeouts" ||
          // the newest 100 requests (all successes here) and the newest 100 issue.created errors
          (entry.group === "busy-ok" && entry.index >= 30) ||
          (entry.group === "busy-errors" && entry.index >= 20),
      ),
    );
    expect(expected).toHaveLength(3 + 5 + 100 + 100);

    await instance.faultline.worker.runDue("installations.request-log-prune");
    const survivors = await db
      .selectFrom("app_request_log")
      .select("id")
      .where("app_id", "in", [busy, quiet])
      .execute();
    expect(survivors.map((r) => String(r.id)).sort()).toEqual(expected);
  });

  it("skips the creation-time SSRF check for the trusted in-process API; the connect-time guard still refuses", async () => {
    const receiver = await startReceiver();
    try {
      const { api } = instance.faultline;
      // No HTTP caller: a private webhook URL is accepted (an HTTP caller gets a 400, see apps.test.ts).
      await api.apps.create({
        organization: "acme",
        name: "Literal",
        slug: "literal",
        isInternal: true,
        webhookUrl: `${receiver.url}/literal`,
        events: ["installation"],
      });
      await api.apps.create({
        organization: "acme",
        name: "Named",
        slug: "named",
        isInternal: true,
        webhookUrl: `${receiver.url.replace("127.0.0.1", "localhost")}/named`,
        events: ["installation"],
      });
      await instance.faultline.worker.runDue("delivery.send");
      const rows = await dbOf(instance)
        .selectFrom("deliveries")
        .select(["url", "status", "attempts", "last_response_code", "last_error"])
        .where("event_type", "=", "installation.created")
        .orderBy("url")
        .execute();
      expect(rows).toEqual([
        {
          url: `${receiver.url}/literal`,
          status: "pending",
          attempts: 1,
          last_response_code: 0,
          last_error: "refused to connect to a private address (127.0.0.1)",
        },
        {
          url: expect.stringMatching(/^http:\/\/localhost:\d+\/named$/),
          status: "pending",
          attempts: 1,
          last_response_code: 0,
          last_error: expect.stringMatching(/^refused to connect to a private address \((127\.0\.0\.1|::1)\)$/),
        },
      ]);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe("graceful stop", () => {
  /** A send in flight: the receiver holds the request until `receiver.release()`. */
  async function slowDelivery() {
    const receiver = await startReceiver([], { holding: true });
    const instance = await createTestInstance({
      announce: false,
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 },
    });
    await instance.faultline.api.organizations.create({ slug: "acme" });
    // An internal app is installed at once: its installation.created goes to the slow receiver.
    await instance.faultline.api.apps.create({
      organization: "acme",
      name: "Slow",
      slug: "slow",
      isInternal: true,
      webhookUrl: `${receiver.url}/slow`,
      events: ["installation"],
    });
    // The request has arrived; no answer until released.
    await receiver.until((all) => all.length === 1);
    const row = (db: Kysely<Database>) =>
      db
        .selectFrom("deliveries")
        .select(["status", "attempts", "last_response_code", "date_finished"])
        .executeTakeFirstOrThrow();
    expect(await row(dbOf(instance))).toMatchObject({ status: "pending", attempts: 1, last_response_code: null });
    return { receiver, instance, row };
  }

  it("worker.stop() waits for a send in flight, which is recorded delivered", async () => {
    const { receiver, instance, row } = await slowDelivery();
    try {
      let stopped = false;
      const stopping = instance.faultline.worker.stop().then(() => {
        stopped = true;
      });
      await sleep(50);
      expect(stopped).toBe(false);
      receiver.release();
      await stopping;
      expect(await row(dbOf(instance))).toEqual({
        status: "delivered",
        attempts: 1,
        last_response_code: 200,
        date_finished: expect.any(Date),
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await instance.close();
      await receiver.close();
    }
  });

  it("close() finishes the send in flight before it lets go of the database", async () => {
    const { receiver, instance, row } = await slowDelivery();
    try {
      let closed = false;
      const closing = instance.faultline.close().then(() => {
        closed = true;
      });
      await sleep(50);
      expect(closed).toBe(false);
      receiver.release();
      await closing;
      // Read what the closed instance left, through another instance on the same schema.
      const reader = createFaultline({ database: instance.database, schema: instance.schema, worker: false });
      try {
        await reader.ready();
        expect(await row(reader.container.resolve(tokens.Db))).toEqual({
          status: "delivered",
          attempts: 1,
          last_response_code: 200,
          date_finished: expect.any(Date),
        });
        const log = await reader.container
          .resolve(tokens.Db)
          .selectFrom("app_request_log")
          .select(["response_code", "event_type"])
          .execute();
        expect(log).toEqual([{ response_code: 200, event_type: "installation.created" }]);
      } finally {
        await reader.close();
      }
      expect(receiver.received).toHaveLength(1);
    } finally {
      await instance.close();
      await receiver.close();
    }
  });
});
