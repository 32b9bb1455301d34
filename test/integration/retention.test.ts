import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.js";
import { openDatabase } from "../../src/db/connect.js";
import { quoteIdentifier } from "../../src/db/identifiers.js";
import { coreLedgerMigrations } from "../helpers/migrations.js";
import { runMigrations } from "../../src/db/migrator.js";
import { createFaultline, type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, pickBackend, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";

/**
 * Retention (#17): events live in weekly partitions of `received`; expiry drops whole partitions
 * (row deletes only for shorter per-project retention and the DEFAULT partition), and issues
 * whose last event expired go with their rows. Events arrive through the real ingest path
 * (envelopes over HTTP, queued, digested) with a fake clock moved between sends.
 */
const { backend, url } = await pickBackend();
const onPostgres = backend !== "pglite";
const DAY = 86_400_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A clock the test moves; starts on a Wednesday so week boundaries (Mondays) are easy to see. */
function fakeClock(start: string) {
  let now = new Date(start);
  return {
    now: () => now,
    set: (iso: string) => void (now = new Date(iso)),
    advance: (ms: number) => void (now = new Date(now.getTime() + ms)),
  };
}

async function instanceWith(clock: { now(): Date }, days?: number): Promise<TestInstance> {
  const instance = await createTestInstance({
    clock,
    worker: false,
    logger: silentLogger,
    ...(days && { retention: { days } }),
  });
  cleanups.push(() => instance.close());
  return instance;
}

async function seedProject(faultline: Faultline<FaultlineApi>, slug: string) {
  if (!(await faultline.api.organizations.get("acme"))) await faultline.api.organizations.create({ slug: "acme" });
  const project = await faultline.api.projects.create({ organization: "acme", slug, platform: "node" });
  return { id: project.id, key: project.keys[0]?.public as string, slug };
}

/** Sends one error event the way @sentry/node does and waits until it is digested. */
async function send(
  faultline: Faultline<FaultlineApi>,
  server: RunningServer,
  project: { id: string; key: string },
  fingerprint: string,
  extra: Record<string, unknown> = {},
) {
  const eventId = (extra.event_id as string | undefined) ?? randomUUID().replaceAll("-", "");
  const event = { ...errorEvent({ fingerprint: [fingerprint] }), event_id: eventId, ...extra };
  const body = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(event)].join("\n");
  const response = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`, {
    method: "POST",
    body,
  });
  expect(response.status).toBe(200);
  await faultline.worker.runDue("ingest.digest");
  return eventId;
}

async function serve(faultline: Faultline<FaultlineApi>) {
  const server = await serveFaultline(faultline);
  cleanups.push(() => server.close());
  return server;
}

function reader(instance: { faultline: Faultline<FaultlineApi>; schema: string }) {
  const db = instance.faultline.container.resolve(tokens.Db);
  return {
    eventIds: async () =>
      (await db.selectFrom("events").select("event_id").orderBy("received").execute()).map((row) => row.event_id),
    locators: async () =>
      (await db.selectFrom("event_ids").select("event_id").orderBy("received").execute()).map((row) => row.event_id),
    issues: async () =>
      (
        await db.selectFrom("issues").select(["title", "metadata", "times_seen", "deleted_at"]).orderBy("id").execute()
      ).map((row) => ({
        fingerprint: (row.metadata as { fingerprint?: string }).fingerprint ?? row.title,
        timesSeen: Number(row.times_seen),
        deleted: row.deleted_at !== null,
      })),
    issueCount: async () =>
      Number(
        (
          await db
            .selectFrom("issues")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    dailyBuckets: async () =>
      (await db.selectFrom("issue_stats_daily").select("bucket").orderBy("bucket").execute()).map((row) =>
        row.bucket.toISOString().slice(0, 10),
      ),
    partitions: async () =>
      (
        await sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = to_regclass(${`${quoteIdentifier(instance.schema)}.events`}) ORDER BY 1`.execute(db)
      ).rows.map((row) => row.name),
    rowsIn: async (partition: string) =>
      Number(
        (
          await sql<{
            n: number;
          }>`SELECT count(*)::integer AS n FROM ${sql.raw(`${quoteIdentifier(instance.schema)}.${partition}`)}`.execute(
            db,
          )
        ).rows[0]?.n,
      ),
  };
}

// PGlite on a busy machine: each test migrates a schema and ingests over HTTP.
describe("retention", { timeout: 180_000 }, () => {
  it("drops whole weekly partitions past retention, keeps the rest, and expires issues whose last event went", async () => {
    const clock = fakeClock("2026-01-07T12:00:00Z"); // Wednesday of the week starting Monday 2026-01-05
    const instance = await instanceWith(clock);
    const { faultline } = instance;
    const server = await serve(faultline);
    const web = await seedProject(faultline, "web");
    const read = reader(instance);

    // Week of 01-05: issues "old" (only here) and "ongoing"; weeks of 01-12 and 01-19: "ongoing" again.
    const old = await send(faultline, server, web, "old");
    const first = await send(faultline, server, web, "ongoing");
    clock.set("2026-01-13T08:00:00Z");
    const second = await send(faultline, server, web, "ongoing");
    clock.set("2026-01-21T09:00:00Z");
    // A client timestamp far in the future does not choose the partition: `received` (the server's clock) does.
    const third = await send(faultline, server, web, "ongoing", { timestamp: "2100-01-01T00:00:00Z" });
    // The test schema was migrated at today's date, so these weeks' rows are in DEFAULT until partitions exist.
    expect(await read.rowsIn("events_default")).toBe(4);

    expect(await faultline.api.retention.run()).toMatchObject({
      ran: true,
      partitionsDropped: [],
      eventsDeleted: 0,
      issuesExpired: 0,
    });
    expect(await read.rowsIn("events_default")).toBe(0);
    expect(await read.partitions()).toEqual(
      expect.arrayContaining(["events_p20260105", "events_p20260112", "events_p20260119", "events_p20260216"]),
    );
    expect(await read.rowsIn("events_p20260105")).toBe(2);

    // 90 days after the week of 01-05 ended (Monday 01-12), plus an hour: that week, and only it, expires.
    clock.set(new Date(Date.parse("2026-01-12T00:00:00Z") + 90 * DAY + 3_600_000).toISOString());
    const report = await faultline.api.retention.run();
    expect(report).toMatchObject({
      ran: true,
      partitionsDropped: ["events_p20260105"],
      eventsDeleted: 0,
      issuesExpired: 1,
    });
    expect(await read.partitions()).not.toContain("events_p20260105");
    expect(await read.eventIds()).toEqual([second, third]);
    expect(await read.locators()).toEqual([second, third]);
    // "old" is hidden at once and purged with its rows by the purge task; "ongoing" keeps its count.
    expect(await read.issues()).toEqual([
      { fingerprint: expect.any(String), timesSeen: 1, deleted: true },
      { fingerprint: expect.any(String), timesSeen: 3, deleted: false },
    ]);
    await faultline.worker.runDue("issues.purge");
    expect(await read.issueCount()).toBe(1);
    // Daily counters before the cutoff (2026-04-12 01:00) are gone; the later ones stay.
    expect(await read.dailyBuckets()).toEqual(["2026-01-13", "2026-01-21"].filter((day) => day >= "2026-01-12"));
    expect(old).not.toBe(first);

    // The expired event id may be sent again (its locator went with it), and a fresh fingerprint opens a new issue.
    const again = await send(faultline, server, web, "old");
    expect(await read.eventIds()).toEqual([second, third, again]);
    expect(await read.issueCount()).toBe(2);

    // Nothing more to do: a second run drops and deletes nothing.
    expect(await faultline.api.retention.run()).toMatchObject({
      ran: true,
      partitionsDropped: [],
      eventsDeleted: 0,
      issuesExpired: 0,
      statsDeleted: 0,
    });
  });

  it("applies a project's own retention by deleting its older rows, leaving other projects' events in place", async () => {
    const clock = fakeClock("2026-03-04T12:00:00Z");
    const instance = await instanceWith(clock, 30);
    const { faultline } = instance;
    const server = await serve(faultline);
    const web = await seedProject(faultline, "web");
    const api = await seedProject(faultline, "api");
    await faultline.api.retention.setProjectDays("acme", "api", 7);
    await expect(faultline.api.retention.setProjectDays("acme", "api", 0)).rejects.toMatchObject({ status: 400 });
    await expect(faultline.api.retention.setProjectDays("acme", "nope", 7)).rejects.toMatchObject({ status: 404 });
    const read = reader(instance);

    const webOld = await send(faultline, server, web, "w");
    const apiOld = await send(faultline, server, api, "a-old");
    await send(faultline, server, api, "a-both");
    clock.advance(10 * DAY);
    const webNew = await send(faultline, server, web, "w");
    const apiNew = await send(faultline, server, api, "a-both");
    clock.advance(2 * DAY);

    const report = await faultline.api.retention.run();
    // api keeps 7 days: its two events from 12 days ago are deleted row by row; web (30 days) keeps both.
    expect(report).toMatchObject({ ran: true, partitionsDropped: [], eventsDeleted: 2, issuesExpired: 1 });
    expect(new Set(await read.eventIds())).toEqual(new Set([webOld, webNew, apiNew]));
    expect(new Set(await read.locators())).toEqual(new Set([webOld, webNew, apiNew]));
    expect(apiOld).toBeTruthy();
    await faultline.worker.runDue("issues.purge");
    expect(await read.issueCount()).toBe(2);

    // Back to the default: nothing else expires yet.
    await faultline.api.retention.setProjectDays("acme", "api", null);
    expect(await faultline.api.retention.run()).toMatchObject({ eventsDeleted: 0, issuesExpired: 0 });
  });

  it("moves an existing populated events table into partitions without losing a row", async () => {
    const schema = `faultline_test_${randomUUID().slice(0, 8)}`;
    const raw = backend === "pglite" ? await PGlite.create() : undefined;
    const input = raw ?? (url as string);
    const opened = await openDatabase(input, schema, { logger: silentLogger, connectTimeoutMs: 5000 });
    cleanups.push(async () => {
      await sql.raw(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`).execute(opened.root);
      await opened.close();
      await raw?.close();
    });
    await runMigrations(opened.root, {
      schema,
      migrations: coreLedgerMigrations.filter((m) => m.name < "0009"),
      tableName: "faultline_migration",
    });
    const s = quoteIdentifier(schema);
    const run = (text: string) => sql.raw(text).execute(opened.root);
    await run(`INSERT INTO ${s}.organizations (slug, name, date_created) VALUES ('acme', 'Acme', now())`);
    await run(
      `INSERT INTO ${s}.projects (organization_id, slug, name, next_short_id, date_created) VALUES (1, 'web', 'Web', 2, now())`,
    );
    await run(
      `INSERT INTO ${s}.project_keys (organization_id, project_id, public_key, date_created) VALUES (1, 1, '${"a".repeat(32)}', now())`,
    );
    await run(
      `INSERT INTO ${s}.issues (organization_id, project_id, short_number, type, title, level, first_seen, last_seen, times_seen) VALUES (1, 1, 1, 'error', 'E', 'error', now(), now(), 400)`,
    );
    // 400 events spread over two years up to a week ahead, two of them far out (2015, 2099).
    await run(`INSERT INTO ${s}.events (organization_id, project_id, issue_id, event_id, timestamp, received, level, type, title, size, payload, tags, hashes)
      SELECT 1, 1, 1, md5(g::text), now() - g * interval '44 hours', now() - g * interval '44 hours' + interval '7 days', 'error', 'error', 'E ' || g, g, jsonb_build_object('n', g), '[["k","v"]]', ARRAY['h']
      FROM generate_series(0, 397) g`);
    await run(`INSERT INTO ${s}.events (organization_id, project_id, issue_id, event_id, timestamp, received, level, type, title, size, payload)
      VALUES (1, 1, 1, 'past', '2015-06-01', '2015-06-01', 'error', 'error', 'P', 1, '{}'), (1, 1, 1, 'future', '2099-06-01', '2099-06-01', 'error', 'error', 'F', 1, '{}')`);
    const snapshot = async () =>
      (await sql.raw<Record<string, unknown>>(`SELECT * FROM ${s}.events ORDER BY id`).execute(opened.root)).rows.map(
        (row) => JSON.stringify(row),
      );
    const before = await snapshot();
    expect(before).toHaveLength(400);

    const faultline = createFaultline({ database: input, schema, worker: false, logger: silentLogger });
    cleanups.push(() => faultline.close());
    const { applied } = await faultline.migrate();
    expect(applied[0]).toBe("0009_retention"); // and the later ones
    expect(await snapshot()).toEqual(before);
    const count = async (text: string) => Number((await sql.raw<{ n: number }>(text).execute(opened.root)).rows[0]?.n);
    expect(await count(`SELECT count(*)::integer AS n FROM ${s}.event_ids`)).toBe(400);
    // Weekly partitions from 2015 on; the far-future row waits in DEFAULT.
    expect(await count(`SELECT count(*)::integer AS n FROM ${s}.events_default`)).toBe(1);
    expect(await count(`SELECT count(*)::integer AS n FROM ${s}.events_p20150601`)).toBe(1);
    expect(await count(`SELECT count(DISTINCT tableoid)::integer AS n FROM ${s}.events`)).toBeGreaterThan(60);

    // New rows continue the ids, and a known event id is still a duplicate.
    const server = await serve(faultline);
    const project = { id: "1", key: "a".repeat(32) };
    const fresh = await send(faultline, server, project, "f");
    const last = (
      await sql
        .raw<{ id: string | number; event_id: string }>(`SELECT id, event_id FROM ${s}.events ORDER BY id DESC LIMIT 1`)
        .execute(opened.root)
    ).rows[0];
    expect({ id: String(last?.id), eventId: last?.event_id }).toEqual({ id: "401", eventId: fresh });
    const known = (await sql.raw<{ id: string }>(`SELECT md5('5') AS id`).execute(opened.root)).rows[0]?.id as string;
    await send(faultline, server, project, "f", { event_id: known });
    expect(await count(`SELECT count(*)::integer AS n FROM ${s}.events`)).toBe(401);
  });

  it.skipIf(!onPostgres)("runs once when two instances run it at the same time (advisory lock)", async () => {
    const clock = fakeClock("2026-01-07T12:00:00Z");
    const instance = await instanceWith(clock);
    const other = createFaultline({
      database: instance.database,
      schema: instance.schema,
      worker: false,
      logger: silentLogger,
      clock,
    });
    await other.ready();
    cleanups.push(() => other.close());
    const server = await serve(instance.faultline);
    const web = await seedProject(instance.faultline, "web");
    await send(instance.faultline, server, web, "x");
    await instance.faultline.api.retention.run();
    clock.advance(120 * DAY);

    // Hold a lock the first run needs after it took the advisory lock, so the two runs overlap for sure.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    cleanups.push(() => blocker.end());
    await blocker.query("BEGIN");
    await blocker.query(`LOCK TABLE ${quoteIdentifier(instance.schema)}.issue_stats_daily IN ACCESS EXCLUSIVE MODE`);
    const first = instance.faultline.api.retention.run();
    await waitFor(
      async () =>
        (
          await blocker.query("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = $1::regclass", [
            `${quoteIdentifier(instance.schema)}.issue_stats_daily`,
          ])
        ).rowCount,
      10_000,
      "the first run waiting",
    );
    const second = await other.api.retention.run();
    await blocker.query("COMMIT");
    expect(second).toMatchObject({ ran: false, partitionsDropped: [] });
    expect(await first).toMatchObject({
      ran: true,
      partitionsDropped: expect.arrayContaining(["events_p20260105"]),
      issuesExpired: 1,
    });
  });

  it.skipIf(!onPostgres)(
    "leaves a partition to the next run rather than wait long behind a reader of events",
    async () => {
      const clock = fakeClock("2026-01-07T12:00:00Z");
      const instance = await instanceWith(clock);
      const server = await serve(instance.faultline);
      const web = await seedProject(instance.faultline, "web");
      const kept = await send(instance.faultline, server, web, "x");
      await instance.faultline.api.retention.run();
      clock.advance(120 * DAY);
      const reader = new pg.Client({ connectionString: url });
      await reader.connect();
      cleanups.push(() => reader.end());
      await reader.query("BEGIN");
      await reader.query(`SELECT count(*) FROM ${quoteIdentifier(instance.schema)}.events`);
      // Attaching the new weeks and the drop give up after lock_timeout (5 s each); the rest of the run is kept.
      expect(await instance.faultline.api.retention.run()).toMatchObject({
        ran: true,
        partitionsCreated: [],
        partitionsDropped: [],
      });
      await reader.query("COMMIT");
      expect(
        await reader
          .query(`SELECT event_id FROM ${quoteIdentifier(instance.schema)}.event_ids`)
          .then((r) => r.rows.map((row) => row.event_id)),
      ).toEqual([kept]);
      expect(await instance.faultline.api.retention.run()).toMatchObject({
        ran: true,
        partitionsDropped: expect.arrayContaining(["events_p20260105"]),
        issuesExpired: 1,
      });
    },
  );

  it("deletes the queued events the digest gave up on once their project's retention has passed, and only those", async () => {
    const clock = fakeClock("2026-01-07T12:00:00Z");
    const { faultline } = await instanceWith(clock, 30);
    const server = await serve(faultline);
    const web = await seedProject(faultline, "web");
    const db = faultline.container.resolve(tokens.Db);
    /** Queues one event (not digested); resolves to its queue row's id. */
    const enqueue = async () => {
      const eventId = randomUUID().replaceAll("-", "");
      const body = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(errorEvent())].join("\n");
      const response = await fetch(`${server.url}/api/${web.id}/envelope/?sentry_key=${web.key}`, {
        method: "POST",
        body,
      });
      expect(response.status).toBe(200);
      const row = await db
        .selectFrom("ingest_queue")
        .select("id")
        .where("event", "like", `%${eventId}%`)
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const givenUp = await enqueue();
    const waiting = await enqueue();
    clock.advance(20 * DAY);
    const recentlyGivenUp = await enqueue();
    await db.updateTable("ingest_queue").set({ attempts: 5 }).where("id", "in", [givenUp, recentlyGivenUp]).execute();

    clock.advance(15 * DAY); // the first two are 35 days old, past the 30 days; the third 15
    await faultline.worker.runDue("ingest.queue-leftovers");
    const left = (await db.selectFrom("ingest_queue").select("id").orderBy("id").execute()).map((row) => row.id);
    expect(left).toEqual([waiting, recentlyGivenUp]);
  });

  it("is run by `faultline retention run`, which prints what it dropped", async () => {
    // Events from 200 days ago (fake clock at ingest); the command runs on the real clock.
    const clock = fakeClock(new Date(Date.now() - 200 * DAY).toISOString());
    let database: string | { dataDir: string };
    let schema: string | undefined;
    let close: () => Promise<void>;
    let faultline: Faultline<FaultlineApi>;
    if (onPostgres) {
      const instance = await createTestInstance({ clock, worker: false, logger: silentLogger });
      ({ faultline, schema } = instance);
      database = url as string;
      close = () => instance.close();
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), "faultline-retention-"));
      database = { dataDir };
      faultline = createFaultline({ database, clock, worker: false, logger: silentLogger });
      await faultline.ready();
      close = async () => rmSync(dataDir, { recursive: true, force: true });
    }
    cleanups.push(() => close());
    const server = await serveFaultline(faultline);
    const web = await seedProject(faultline, "web");
    await send(faultline, server, web, "x");
    await faultline.api.retention.run();
    await server.close();
    const week = (await reader({ faultline, schema: schema ?? "faultline" }).partitions()).find(
      (name) =>
        name !== "events_default" &&
        name < "events_p" + new Date(Date.now() - 150 * DAY).toISOString().slice(0, 10).replaceAll("-", ""),
    );
    if (!onPostgres) await faultline.close();

    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (text: string) => void out.push(text), err: (text: string) => void err.push(text) };
    const args =
      typeof database === "string"
        ? ["--database-url", database, "--schema", schema as string]
        : ["--data-dir", database.dataDir];
    expect(await runCli(["retention", "run", ...args, "--days", "90"], io)).toBe(0);
    expect(err.join("")).toBe("");
    expect(out.join("")).toContain(`dropped partition ${week}`);
    expect(out.join("")).toContain("expired 1 issues");
    expect(await runCli(["retention", "nope", ...args], io)).toBe(2);
    if (onPostgres) expect(await reader({ faultline, schema: schema as string }).issueCount()).toBe(0);
  });
});
