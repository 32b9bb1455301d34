import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.js";
import {
  createFaultline,
  definePlugin,
  type Faultline,
  type FaultlineApi,
  type FaultlineOptions,
  tokens,
} from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, pickBackend, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { inProcess, type RunningServer, serveFaultline } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";

/**
 * Queued ingest (#14, the default): the accept path answers once events are durably queued; the
 * `ingest.digest` task groups and stores them in batches. Two consumers need several database
 * sessions on one server, so that test runs on PostgreSQL only.
 */
const { backend } = await pickBackend();
const onPostgres = backend !== "pglite";
const DIGEST = "ingest.digest";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const newEventId = () => randomUUID().replaceAll("-", "");

/** Counts the domain events an instance emits, to prove which instance digested what. */
function domainEventCounter() {
  const counts = { errors: 0, regressions: 0 };
  const plugin = definePlugin({
    id: "test-domain-event-counter",
    on: {
      "error.created": () => void (counts.errors += 1),
      "issue.unresolved": (event) => void (event.payload.reason === "regression" && (counts.regressions += 1)),
    },
  });
  return { counts, plugin };
}

async function queuedInstance(options: Omit<FaultlineOptions, "database" | "schema"> = {}): Promise<TestInstance> {
  const instance = await createTestInstance({
    worker: false,
    logger: silentLogger,
    ...options,
    ingest: { queued: true, ...options.ingest },
  });
  cleanups.push(() => instance.close());
  return instance;
}

/** Another instance on the same database and schema (another process, as far as the data goes). */
async function sibling(
  of: TestInstance,
  options: Omit<FaultlineOptions, "database" | "schema"> = {},
): Promise<Faultline<FaultlineApi>> {
  const faultline = createFaultline({
    database: of.database,
    schema: of.schema,
    worker: false,
    logger: silentLogger,
    ...options,
    ingest: { queued: true, ...options.ingest },
  });
  await faultline.ready();
  cleanups.push(() => faultline.close());
  return faultline;
}

async function seedProject(faultline: Faultline<FaultlineApi>) {
  await faultline.api.organizations.create({ slug: "acme" });
  const project = await faultline.api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  return { id: project.id, key: project.keys[0]?.public as string };
}

async function serve(faultline: Faultline<FaultlineApi>): Promise<RunningServer> {
  const server = await serveFaultline(faultline);
  cleanups.push(() => server.close());
  return server;
}

/** What @sentry/node sends for one error event (the key in the query, as @sentry/node 11 does). */
function sendEvent(server: RunningServer, project: { id: string; key: string }, event: Record<string, unknown>) {
  const eventId = (event.event_id as string | undefined) ?? newEventId();
  const body = [
    JSON.stringify({ event_id: eventId }),
    '{"type":"event"}',
    JSON.stringify({ ...event, event_id: eventId }),
  ].join("\n");
  return fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`, { method: "POST", body });
}

const fingerprinted = (fingerprint: string) => errorEvent({ fingerprint: [fingerprint] });

function counts(faultline: Faultline<FaultlineApi>) {
  const db = faultline.container.resolve(tokens.Db);
  return {
    queued: async () =>
      Number(
        (
          await db
            .selectFrom("ingest_queue")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    events: async () =>
      Number(
        (
          await db
            .selectFrom("events")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    issues: async () =>
      (await db.selectFrom("issues").select(["id", "times_seen"]).orderBy("id").execute()).map((row) => ({
        id: row.id,
        timesSeen: Number(row.times_seen),
      })),
    stats: async () =>
      Number(
        (
          await db
            .selectFrom("issue_stats_hourly")
            .select((eb) => eb.fn.sum<string>("count").as("n"))
            .executeTakeFirstOrThrow()
        ).n ?? 0,
      ),
    hashes: async () =>
      Number(
        (
          await db
            .selectFrom("issue_hashes")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
  };
}

describe("queued ingest: accept, then digest", () => {
  // The file's first instance starts the process's PGlite: seconds, many more on a busy machine.
  it(
    "acknowledges once the event is queued; the digest groups and stores it and empties the queue",
    { timeout: 120_000 },
    async () => {
      const instance = await queuedInstance();
      const { faultline } = instance;
      const project = await seedProject(faultline);
      const server = await serve(faultline);
      const table = counts(faultline);

      const eventId = newEventId();
      const response = await sendEvent(server, project, { ...errorEvent(), event_id: eventId });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
      expect(await table.queued()).toBe(1);
      expect(await table.events()).toBe(0);

      await faultline.worker.runDue(DIGEST);
      expect(await table.queued()).toBe(0);
      const stored = await faultline.container
        .resolve(tokens.Db)
        .selectFrom("events")
        .select(["event_id", "issue_id"])
        .execute();
      expect(stored).toEqual([{ event_id: eventId, issue_id: expect.anything() }]);
      expect(await table.issues()).toEqual([{ id: stored[0]?.issue_id, timesSeen: 1 }]);
    },
  );

  it("stores each event's payload as sent whether its JSON text was queued as it came, repaired, or changed at accept", async () => {
    const { faultline } = await queuedInstance();
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    const url = `${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`;
    // As sent (spaces, escapes, non-ASCII kept in the queued text), repaired (a NUL in a string), and
    // changed at accept ({{auto}} replaced by the sender's address): one group commit holds all three.
    const asSent = {
      ...errorEvent({ message: 'quote " slash \\ tab \t é 😀 \u2028' }),
      event_id: newEventId(),
      extra: { nested: [1, 2.5, null, true] },
    };
    const repaired = { ...errorEvent({ message: "nul \u0000 here" }), event_id: newEventId() };
    const inferred = { ...errorEvent(), event_id: newEventId(), user: { id: "u1", ip_address: "{{auto}}" } };
    const texts = [JSON.stringify(asSent, null, 2), JSON.stringify(repaired), JSON.stringify(inferred)];
    const responses = await Promise.all(
      texts.map((text) => fetch(url, { method: "POST", body: `{}\n{"type":"event"}\n${text.replaceAll("\n", " ")}` })),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const db = faultline.container.resolve(tokens.Db);
    const queuedTexts = (await db.selectFrom("ingest_queue").select("event").execute()).map((row) => row.event);
    // The first one's text went into the queue as it came (its pretty-printing spaces are still there).
    expect(queuedTexts.filter((text) => text.includes(`"event_id": "${asSent.event_id}"`))).toHaveLength(1);

    await faultline.worker.runDue(DIGEST);
    const rows = await db.selectFrom("events").select(["event_id", "payload", "size"]).execute();
    const stored = new Map(rows.map((row) => [row.event_id, row]));
    expect(stored.get(asSent.event_id)?.payload).toEqual(asSent);
    expect(stored.get(asSent.event_id)?.size).toBe(Buffer.byteLength(texts[0]?.replaceAll("\n", " ") ?? ""));
    expect((stored.get(repaired.event_id)?.payload as { message: string }).message).toBe("nul \ufffd here");
    expect((stored.get(repaired.event_id)?.payload as { errors: unknown[] }).errors).toHaveLength(1);
    expect((stored.get(inferred.event_id)?.payload as { user: unknown }).user).toEqual({
      id: "u1",
      ip_address: "127.0.0.1",
    });
  });

  it("keeps direct ingest's validation on the accept path: an invalid event is a 400 and never queued", async () => {
    const { faultline } = await queuedInstance();
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    const body = [JSON.stringify({ event_id: newEventId() }), '{"type":"event"}', "[1,2,3]"].join("\n");
    const response = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`, {
      method: "POST",
      body,
    });
    expect(response.status).toBe(400);
    expect(await counts(faultline).queued()).toBe(0);
  });

  it("api.events.capture resolves once the event is queued, before the digest stores it", async () => {
    const { faultline } = await queuedInstance();
    await seedProject(faultline);
    const table = counts(faultline);
    const { eventId } = await faultline.api.events.capture({ organization: "acme", project: "web" }, errorEvent());
    expect(await table.queued()).toBe(1);
    expect(await table.events()).toBe(0);
    await faultline.worker.runDue(DIGEST);
    const stored = await faultline.container.resolve(tokens.Db).selectFrom("events").select("event_id").execute();
    expect(stored).toEqual([{ event_id: eventId }]);
  });

  it("with the worker running in-process, an accepted event becomes visible without anyone draining", async () => {
    const { faultline } = await queuedInstance({ worker: true });
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    const eventId = newEventId();
    expect((await sendEvent(server, project, { ...errorEvent(), event_id: eventId })).status).toBe(200);
    const db = faultline.container.resolve(tokens.Db);
    await waitFor(
      () => db.selectFrom("events").select("event_id").where("event_id", "=", eventId).executeTakeFirst(),
      5_000,
      "digested event",
    );
    expect(await counts(faultline).queued()).toBe(0);
  });

  it("loses nothing when the instance stops between accept and digest: another instance digests every event exactly once", async () => {
    const first = await queuedInstance({ ingest: { digestBatchSize: 7 } });
    const project = await seedProject(first.faultline);
    const server = await serve(first.faultline);
    const sent: string[] = [];
    for (let i = 0; i < 30; i++) {
      const eventId = newEventId();
      sent.push(eventId);
      expect((await sendEvent(server, project, { ...fingerprinted(`fp-${i % 3}`), event_id: eventId })).status).toBe(
        200,
      );
    }
    // The same event sent twice (an SDK retry) is stored once.
    expect((await sendEvent(server, project, { ...fingerprinted("fp-0"), event_id: sent[0] })).status).toBe(200);
    await first.faultline.close();

    const next = await sibling(first, { ingest: { digestBatchSize: 7 } });
    const table = counts(next);
    expect(await table.queued()).toBe(31);
    await next.worker.runDue(DIGEST);
    expect(await table.queued()).toBe(0);
    const stored = await next.container.resolve(tokens.Db).selectFrom("events").select("event_id").execute();
    expect(stored.map((row) => row.event_id).sort()).toEqual([...sent].sort());
    expect((await table.issues()).map((issue) => issue.timesSeen)).toEqual([10, 10, 10]);
    expect(await table.stats()).toBe(30);
  });

  it("an event the digest cannot store fails alone: the rest of its batch is stored, it is retried, then skipped and kept", async () => {
    const { faultline } = await queuedInstance();
    await seedProject(faultline);
    const capture = () => faultline.api.events.capture({ organization: "acme", project: "web" }, errorEvent());
    const before = await capture();
    const db = faultline.container.resolve(tokens.Db);
    // A row no batch can store (as a row written by a buggy or newer version could be), between good ones.
    const project = await db.selectFrom("projects").select(["id", "organization_id"]).executeTakeFirstOrThrow();
    await db
      .insertInto("ingest_queue")
      .values({
        project_id: project.id,
        organization_id: project.organization_id,
        platform: "node",
        event: "{not json",
      })
      .execute();
    const after = await capture();

    await faultline.worker.runDue(DIGEST);
    const stored = await db.selectFrom("events").select("event_id").execute();
    expect(stored.map((row) => row.event_id).sort()).toEqual([before.eventId, after.eventId].sort());
    expect(await db.selectFrom("ingest_queue").select(["event", "attempts"]).execute()).toEqual([
      { event: "{not json", attempts: 1 },
    ]);

    for (let run = 0; run < 6; run++) await faultline.worker.runDue(DIGEST);
    // Skipped after 5 attempts, not deleted: it stays for an operator to inspect.
    expect(await db.selectFrom("ingest_queue").select(["event", "attempts"]).execute()).toEqual([
      { event: "{not json", attempts: 5 },
    ]);
  });

  it("keeps regressions: an event for a resolved issue reopens it when digested, with its domain event", async () => {
    const counter = domainEventCounter();
    const { faultline } = await queuedInstance({ plugins: [counter.plugin] });
    await seedProject(faultline);
    const capture = () =>
      faultline.api.events.capture({ organization: "acme", project: "web" }, fingerprinted("regressing"));
    await capture();
    await faultline.worker.runDue(DIGEST);
    const db = faultline.container.resolve(tokens.Db);
    await db.updateTable("issues").set({ status: "resolved", substatus: null }).execute();

    await capture();
    expect(counter.counts.regressions).toBe(0);
    await faultline.worker.runDue(DIGEST);
    expect(await db.selectFrom("issues").select(["status", "substatus"]).execute()).toEqual([
      { status: "unresolved", substatus: "regressed" },
    ]);
    expect((await counts(faultline).issues()).map((issue) => issue.timesSeen)).toEqual([2]);
    const activity = await db.selectFrom("issue_activity").select("type").orderBy("id").execute();
    expect(activity.map((row) => row.type)).toEqual(["first_seen", "set_regression"]);
    expect(counter.counts).toEqual({ errors: 2, regressions: 1 });
  });

  it("dates a regression when the digest records it: a resolve committed between accept and digest sorts below it", async () => {
    let now = new Date("2026-05-01T10:00:00.000Z");
    const at = (minutes: number) => (now = new Date(Date.parse("2026-05-01T10:00:00.000Z") + minutes * 60_000));
    const { faultline } = await queuedInstance({ clock: { now: () => now } });
    const seeded = await seedOrganization(faultline, "acme");
    const call = inProcess(faultline, seeded.allScopesToken);
    const capture = () =>
      faultline.api.events.capture({ organization: "acme", project: "web" }, fingerprinted("raced"));
    await capture();
    await faultline.worker.runDue(DIGEST);
    const [issue] = (await call("GET", "/api/0/organizations/acme/issues/?query=")).body as Array<{ id: string }>;
    const issuePath = `/api/0/organizations/acme/issues/${issue?.id}/`;
    /** The issue's activity, oldest first, as the issue detail lists it (newest first). */
    const activity = async () =>
      ((await call("GET", issuePath)).body.activity as Array<{ type: string; dateCreated: string }>)
        .map(({ type, dateCreated }) => [type, dateCreated])
        .reverse();

    // Accepted at 10:01, resolved at 10:02, digested at 10:03.
    at(1);
    await capture();
    at(2);
    expect((await call("PUT", issuePath, { status: "resolved" })).status).toBe(200);
    at(3);
    await faultline.worker.runDue(DIGEST);
    expect((await call("GET", issuePath)).body.status).toBe("unresolved");
    expect(await activity()).toEqual([
      ["first_seen", "2026-05-01T10:00:00.000Z"],
      ["set_resolved", "2026-05-01T10:02:00.000Z"],
      ["set_regression", "2026-05-01T10:03:00.000Z"],
    ]);

    // The race: the digest read its clock (10:05) before the resolve (10:06) committed; its
    // regression is still dated no earlier than the resolve it undid, and listed after it.
    at(4);
    await capture();
    at(6);
    expect((await call("PUT", issuePath, { status: "resolved" })).status).toBe(200);
    at(5);
    await faultline.worker.runDue(DIGEST);
    const raced = await activity();
    expect(raced.slice(3)).toEqual([
      ["set_resolved", "2026-05-01T10:06:00.000Z"],
      ["set_regression", "2026-05-01T10:06:00.000Z"],
    ]);
    const dates = raced.map(([, date]) => Date.parse(date as string));
    expect(dates).toEqual([...dates].sort((a, b) => a - b));
  });
});

describe("direct ingest (ingest.queued: false)", () => {
  it("answers after the event is grouped and stored, and queues nothing", async () => {
    const instance = await createTestInstance({ worker: false, logger: silentLogger, ingest: { queued: false } });
    cleanups.push(() => instance.close());
    const project = await seedProject(instance.faultline);
    const server = await serve(instance.faultline);
    const eventId = newEventId();
    expect((await sendEvent(server, project, { ...errorEvent(), event_id: eventId })).status).toBe(200);
    const { eventId: captured } = await instance.faultline.api.events.capture(
      { organization: "acme", project: "web" },
      errorEvent(),
    );
    const table = counts(instance.faultline);
    expect(await table.queued()).toBe(0);
    const stored = await instance.faultline.container
      .resolve(tokens.Db)
      .selectFrom("events")
      .select("event_id")
      .orderBy("event_id")
      .execute();
    expect(stored.map((row) => row.event_id).sort()).toEqual([eventId, captured].sort());
    expect((await table.issues()).map((issue) => issue.timesSeen)).toEqual([2]);
  });
});

describe("queued ingest: back-pressure", () => {
  it("answers 429 with Retry-After and X-Sentry-Rate-Limits past the queue bound, and accepts again once digested", async () => {
    const { faultline } = await queuedInstance({ ingest: { maxQueueDepth: 3 } });
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    for (let i = 0; i < 3; i++) expect((await sendEvent(server, project, errorEvent())).status).toBe(200);

    const refused = await sendEvent(server, project, errorEvent());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("x-sentry-rate-limits")).toBe("1:error:organization:queue_full");
    expect(refused.headers.get("access-control-expose-headers")).toContain("X-Sentry-Rate-Limits");
    expect(await refused.json()).toEqual({ detail: "Ingest queue full; retry after 1 seconds" });
    expect(await counts(faultline).queued()).toBe(3);

    await faultline.worker.runDue(DIGEST);
    expect((await sendEvent(server, project, errorEvent())).status).toBe(200);
    expect(await counts(faultline).queued()).toBe(1);
  });

  it("refuses an envelope whose events do not all fit, as a whole", async () => {
    const { faultline } = await queuedInstance({ ingest: { maxQueueDepth: 2 } });
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    expect((await sendEvent(server, project, errorEvent())).status).toBe(200);
    const twoEvents = [
      JSON.stringify({}),
      '{"type":"event"}',
      JSON.stringify(errorEvent()),
      '{"type":"event"}',
      JSON.stringify(errorEvent()),
    ].join("\n");
    const response = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`, {
      method: "POST",
      body: twoEvents,
    });
    expect(response.status).toBe(429);
    expect(await counts(faultline).queued()).toBe(1);
  });
});

describe.runIf(onPostgres)("queued ingest: consumers in several processes (PostgreSQL)", () => {
  it("`faultline worker` digests what web instances without a worker queued, and stops on its signal", async () => {
    const web = await queuedInstance();
    await seedProject(web.faultline);
    const { eventId } = await web.faultline.api.events.capture({ organization: "acme", project: "web" }, errorEvent());
    let output = "";
    const stop = new AbortController();
    const running = runCli(
      ["worker", "--database-url", web.database as string, "--schema", web.schema],
      { out: (t) => void (output += t), err: (t) => void (output += t) },
      stop.signal,
    );
    try {
      const db = web.faultline.container.resolve(tokens.Db);
      await waitFor(
        () => db.selectFrom("events").select("event_id").where("event_id", "=", eventId).executeTakeFirst(),
        10_000,
        "the event digested by the CLI worker",
      );
      expect(await counts(web.faultline).queued()).toBe(0);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    expect(output).toBe(`faultline: worker running on schema ${web.schema}\nfaultline: worker stopped\n`);
  });

  it("two instances digesting one queue at once store every event once, one issue per fingerprint, exact counts", async () => {
    const first = domainEventCounter();
    const second = domainEventCounter();
    const seeder = await queuedInstance({ ingest: { digestBatchSize: 40 }, plugins: [first.plugin] });
    await seedProject(seeder.faultline);
    const other = await sibling(seeder, { ingest: { digestBatchSize: 40 }, plugins: [second.plugin] });
    const fingerprints = 25;
    const perFingerprint = 24;
    const captures = [];
    for (let i = 0; i < fingerprints * perFingerprint; i++) {
      captures.push(
        seeder.faultline.api.events.capture(
          { organization: "acme", project: "web" },
          { ...fingerprinted(`fp-${i % fingerprints}`), user: { id: `u${i % 5}` } },
        ),
      );
    }
    await Promise.all(captures);
    const table = counts(seeder.faultline);
    expect(await table.queued()).toBe(fingerprints * perFingerprint);

    // Every fingerprint is new to both consumers: they race to create its issue.
    await Promise.all([seeder.faultline.worker.runDue(DIGEST), other.worker.runDue(DIGEST)]);

    expect(await table.queued()).toBe(0);
    expect(await table.events()).toBe(fingerprints * perFingerprint);
    const issues = await table.issues();
    expect(issues).toHaveLength(fingerprints);
    expect(issues.map((issue) => issue.timesSeen)).toEqual(Array.from({ length: fingerprints }, () => perFingerprint));
    expect(await table.hashes()).toBe(fingerprints);
    expect(await table.stats()).toBe(fingerprints * perFingerprint);
    expect(first.counts.errors + second.counts.errors).toBe(fingerprints * perFingerprint);
    expect(first.counts.errors).toBeGreaterThan(0);
    expect(second.counts.errors).toBeGreaterThan(0);
  });

  it("one instance digesting several batches at once (ingest.digestConcurrency) stores every event once, exact counts", async () => {
    const counter = domainEventCounter();
    const instance = await queuedInstance({
      ingest: { digestBatchSize: 30, digestConcurrency: 4 },
      plugins: [counter.plugin],
    });
    await seedProject(instance.faultline);
    const fingerprints = 20;
    const perFingerprint = 30;
    await Promise.all(
      Array.from({ length: fingerprints * perFingerprint }, (_, i) =>
        instance.faultline.api.events.capture(
          { organization: "acme", project: "web" },
          { ...fingerprinted(`fp-${i % fingerprints}`), user: { id: `u${i % 7}` } },
        ),
      ),
    );
    const table = counts(instance.faultline);

    await instance.faultline.worker.runDue(DIGEST);

    expect(await table.queued()).toBe(0);
    expect(await table.events()).toBe(fingerprints * perFingerprint);
    const issues = await table.issues();
    expect(issues.map((issue) => issue.timesSeen)).toEqual(Array.from({ length: fingerprints }, () => perFingerprint));
    expect(await table.hashes()).toBe(fingerprints);
    expect(await table.stats()).toBe(fingerprints * perFingerprint);
    expect(counter.counts.errors).toBe(fingerprints * perFingerprint);
  });
});
