import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomHex } from "../../src/crypto/secrets.js";
import { quoteIdentifier } from "../../src/db/identifiers.js";
import {
  createFaultline,
  DatabaseUnavailableError,
  type Faultline,
  type FaultlineApi,
  type FaultlineOptions,
  tokens,
} from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { pickBackend } from "../../src/testing/index.js";
import { captureFor, digestQueued, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, serveFaultline } from "../helpers/server.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { sleep, waitFor } from "../helpers/wait.js";

/**
 * A lost PostgreSQL connection (terminated backends, a network outage, a database not up yet)
 * never takes the host process down, never loses an acknowledged event and never stops
 * deliveries for good. PostgreSQL only: PGlite runs in-process and has no connection to lose.
 * Other test files share the server, so every kill is restricted to this file's own
 * connections, recognised by their `application_name`.
 */
const { backend, url: serverUrl } = await pickBackend();
const onPostgres = backend !== "pglite" && serverUrl !== undefined;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let admin: pg.Pool;
beforeAll(() => {
  if (onPostgres)
    admin = new pg.Pool({
      connectionString: withApplicationName(serverUrl as string, "faultline_resilience_admin"),
      max: 2,
    });
});
afterAll(async () => {
  await admin?.end();
});

function withApplicationName(connectionString: string, name: string): string {
  const url = new URL(connectionString);
  url.searchParams.set("application_name", name);
  return url.toString();
}

/** Terminates every backend of `applicationName`; resolves to their pids. */
async function terminateBackends(applicationName: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number; terminated: boolean }>(
    "SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
    [applicationName],
  );
  return rows.filter((row) => row.terminated).map((row) => row.pid);
}

interface Backend {
  pid: number;
  query: string;
  state: string;
}

async function backendsOf(applicationName: string): Promise<Backend[]> {
  const { rows } = await admin.query<Backend>(
    "SELECT pid, query, state FROM pg_stat_activity WHERE application_name = $1",
    [applicationName],
  );
  return rows;
}

/** A connection as LISTEN leaves it: idle, its last statement the LISTEN (and not one of `excluding`). */
const isListening = (rows: Backend[], excluding: number[] = []) =>
  rows.some((row) => row.state === "idle" && row.query.startsWith("LISTEN") && !excluding.includes(row.pid));

/** pg_terminate_backend only signals: waits until those backends have exited, and a new LISTEN connection is up. */
async function untilReconnected(applicationName: string, terminated: number[]): Promise<void> {
  await waitFor(
    async () => {
      const rows = await backendsOf(applicationName);
      return !rows.some((row) => terminated.includes(row.pid)) && isListening(rows, terminated);
    },
    10_000,
    "terminated backends gone and LISTEN connection back",
  );
}

interface Instance {
  faultline: Faultline<FaultlineApi>;
  applicationName: string;
  schema: string;
}

/**
 * An instance on its own schema whose connections carry their own `application_name` (so this
 * test can terminate them and nothing else); `via` routes them through a proxy.
 */
async function openInstance(
  options: Omit<FaultlineOptions, "database" | "schema"> & { schema?: string; via?: TcpProxy; ready?: boolean } = {},
): Promise<Instance> {
  const { via, schema = `faultline_test_${randomHex(6)}`, ready = true, ...rest } = options;
  // The instance that created the schema drops it (last, since cleanups run in reverse).
  const ownsSchema = options.schema === undefined;
  const applicationName = `faultline_resilience_${randomHex(4)}`;
  const named = withApplicationName(serverUrl as string, applicationName);
  const faultline = createFaultline({
    logger: silentLogger,
    delivery: { allowPrivateNetworks: true },
    ...rest,
    database: via ? via.url(named) : named,
    schema,
  });
  cleanups.push(async () => {
    await faultline.close();
    if (ownsSchema) await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
  });
  if (ready) await faultline.ready();
  return { faultline, applicationName, schema };
}

async function proxyToServer(): Promise<TcpProxy> {
  const target = new URL(serverUrl as string);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  cleanups.push(proxy.close);
  return proxy;
}

/** An app of `organization` whose webhook (subscribed to `error`) is `receiverUrl`. */
async function subscribe(faultline: Faultline<FaultlineApi>, organization: string, receiverUrl: string) {
  await faultline.api.apps.create({
    organization,
    name: "Tracker",
    slug: "tracker",
    isInternal: true,
    webhookUrl: `${receiverUrl}/hook`,
    events: ["error"],
  });
}

const newEventId = () => randomUUID().replaceAll("-", "");

/** An envelope as @sentry/node 11 posts it. */
function envelope(eventId: string): string {
  return [
    JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
    '{"type":"event"}',
    JSON.stringify({ event_id: eventId, ...errorEvent() }),
  ].join("\n");
}

describe.skipIf(!onPostgres)("database resilience (PostgreSQL only)", { timeout: 60_000 }, () => {
  it("every connection terminated while idle: the process stays up, the next requests succeed and LISTEN comes back", async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    // Polling effectively off: only a NOTIFY (or the wake after a reconnect) drives the delivery worker.
    const { faultline, applicationName, schema } = await openInstance({
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 600_000 },
    });
    const seeded = await seedOrganization(faultline);
    await subscribe(faultline, "acme", receiver.url);
    const server = await serveFaultline(faultline);
    cleanups.push(server.close);
    const get = () => fetch(`${server.url}/api/0/organizations/acme/`, { headers: bearer(seeded.allScopesToken) });
    expect((await Promise.all([get(), get(), get()])).map((r) => r.status)).toEqual([200, 200, 200]);
    await waitFor(async () => isListening(await backendsOf(applicationName)), 5_000, "LISTEN connection");

    const terminated = await terminateBackends(applicationName);
    expect(terminated.length).toBeGreaterThanOrEqual(2); // pool connections and the LISTEN one
    await untilReconnected(applicationName, terminated);
    expect((await Promise.all([get(), get(), get()])).map((r) => r.status)).toEqual([200, 200, 200]);

    // Another process commits an event: its NOTIFY reaches this instance over the new LISTEN connection.
    const other = await openInstance({ schema, worker: false, autoMigrate: false });
    await captureFor(other.faultline, { id: seeded.project.id, organizationId: seeded.organization.id })(
      errorEvent({ fingerprint: ["after-reconnect"] }),
    );
    await receiver.until((all) => all.length === 1, 10_000);
  });

  it("the worker catches up on what was committed while its LISTEN connection was down", async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const proxy = await proxyToServer();
    const { faultline, schema } = await openInstance({
      via: proxy,
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 600_000 },
    });
    const seeded = await seedOrganization(faultline);
    await subscribe(faultline, "acme", receiver.url);

    proxy.cut();
    const other = await openInstance({ schema, worker: false, autoMigrate: false });
    const capture = captureFor(other.faultline, { id: seeded.project.id, organizationId: seeded.organization.id });
    for (let i = 0; i < 3; i++) await capture(errorEvent({ fingerprint: [`missed-${i}`] }));
    await sleep(300); // the NOTIFYs went nowhere
    expect(receiver.received).toHaveLength(0);
    proxy.restore();
    await receiver.until((all) => all.length === 3, 15_000);
  });

  it("a network outage: API and ingest requests get 503 with Retry-After (not a hang, not a 500) and succeed once it is over", async () => {
    const proxy = await proxyToServer();
    const { faultline } = await openInstance({ via: proxy, worker: false, connection: { timeoutMs: 500 } });
    const seeded = await seedOrganization(faultline);
    const key = seeded.project.keys[0]?.public as string;
    const server = await serveFaultline(faultline);
    cleanups.push(server.close);
    const get = () => fetch(`${server.url}/api/0/organizations/acme/`, { headers: bearer(seeded.allScopesToken) });
    const ingest = (eventId: string) =>
      fetch(`${server.url}/api/${seeded.project.id}/envelope/?sentry_version=7&sentry_key=${key}`, {
        method: "POST",
        body: envelope(eventId),
      });
    expect((await get()).status).toBe(200);

    for (const outage of ["cut", "blackhole"] as const) {
      proxy[outage]();
      const started = Date.now();
      const api = await get();
      expect(api.status, outage).toBe(503);
      expect(api.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await api.json()).toMatchObject({ detail: expect.stringMatching(/database/i) });
      const sdk = await ingest(newEventId());
      expect(sdk.status, outage).toBe(503);
      expect(sdk.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(sdk.headers.get("access-control-expose-headers")).toContain("Retry-After");
      expect(sdk.headers.get("x-sentry-error")).toMatch(/database/i);
      // The pool's connect timeout (500 ms) bounds a silent outage; nothing waits for the OS's.
      expect(Date.now() - started, outage).toBeLessThan(5_000);
      proxy.restore();
      expect((await get()).status).toBe(200);
      const eventId = newEventId();
      expect((await ingest(eventId)).status).toBe(200);
      await digestQueued(faultline); // queued ingest: grouped after the answer
      const stored = await faultline.container
        .resolve(tokens.Db)
        .selectFrom("events")
        .select("event_id")
        .where("event_id", "=", eventId)
        .execute();
      expect(stored).toHaveLength(1);
    }
  });

  it("close() during an outage returns promptly: LISTEN stops reconnecting and nothing is left running", async () => {
    const proxy = await proxyToServer();
    const { faultline, applicationName } = await openInstance({
      via: proxy,
      connection: { timeoutMs: 500 },
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 50 },
    });
    await waitFor(async () => isListening(await backendsOf(applicationName)), 5_000, "LISTEN connection");
    proxy.blackhole();
    await sleep(300); // the worker's polls and the LISTEN reconnects meet the outage
    const started = Date.now();
    await faultline.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    proxy.restore();
    await sleep(300);
    expect(await backendsOf(applicationName)).toEqual([]); // no reconnect after close
  });

  it("startup with the database down fails with one clear error; with connection.startupWaitMs it waits for the database", async () => {
    const closedPort = await unusedPort();
    const down = createFaultline({
      logger: silentLogger,
      database: `postgres://faultline:s3cret@127.0.0.1:${closedPort}/nowhere`,
      worker: false,
    });
    cleanups.push(() => down.close());
    const failure = await down.ready().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    expect(String((failure as Error).message)).toContain(`127.0.0.1:${closedPort}`);
    expect(String((failure as Error).message)).not.toContain("s3cret");
    expect(((failure as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    // migrate() (what `faultline migrate` runs) says the same.
    await expect(down.migrate()).rejects.toThrow(DatabaseUnavailableError);

    const proxy = await proxyToServer();
    proxy.cut();
    const waiting = await openInstance({
      via: proxy,
      ready: false,
      worker: false,
      connection: { startupWaitMs: 20_000 },
    });
    let ready = false;
    const readying = waiting.faultline.ready().then(() => (ready = true));
    await sleep(700);
    expect(ready).toBe(false);
    proxy.restore();
    await readying;
    expect(await waiting.faultline.api.organizations.create({ slug: "late" })).toMatchObject({ slug: "late" });

    // close() ends a startup wait at once.
    proxy.cut();
    const abandoned = await openInstance({
      via: proxy,
      ready: false,
      worker: false,
      connection: { startupWaitMs: 20_000 },
    });
    const abandoning = abandoned.faultline.ready().then(
      () => "ready",
      (error: unknown) => error,
    );
    await sleep(300);
    const closeStarted = Date.now();
    await abandoned.faultline.close();
    expect(await abandoning).toMatchObject({ status: 503, detail: "This Faultline instance is closed" });
    expect(Date.now() - closeStarted).toBeLessThan(2_000);
  });

  it("ingest under load while every connection is terminated again and again: every event answered 200 is stored exactly once; the rest get 503 + Retry-After", async () => {
    // The worker runs too (alert rules, deliveries, purges): the whole host meets the terminations.
    const { faultline, applicationName } = await openInstance({ connection: { timeoutMs: 2_000 } });
    const seeded = await seedOrganization(faultline);
    const key = seeded.project.keys[0]?.public as string;
    const server = await serveFaultline(faultline);
    cleanups.push(server.close);
    const accepted: string[] = [];
    const refused: Array<{ status: number; retryAfter: string | null }> = [];

    let loading = true;
    let terminated = 0;
    const terminator = (async () => {
      while (loading) {
        await sleep(40);
        terminated += (await terminateBackends(applicationName)).length;
      }
    })();
    const sender = async () => {
      for (let i = 0; i < 40; i++) {
        const eventId = newEventId();
        const response = await fetch(
          `${server.url}/api/${seeded.project.id}/envelope/?sentry_version=7&sentry_key=${key}`,
          { method: "POST", body: envelope(eventId) },
        );
        await response.arrayBuffer();
        if (response.status === 200) accepted.push(eventId);
        else refused.push({ status: response.status, retryAfter: response.headers.get("retry-after") });
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    loading = false;
    await terminator;
    // Still serving: once the last terminations have gone through, an event is accepted again.
    const last = newEventId();
    await waitFor(
      async () =>
        (
          await fetch(`${server.url}/api/${seeded.project.id}/envelope/?sentry_version=7&sentry_key=${key}`, {
            method: "POST",
            body: envelope(last),
          })
        ).status === 200,
      5_000,
      "an event accepted after the terminations",
    );
    accepted.push(last);

    expect(terminated).toBeGreaterThan(0);
    expect(accepted.length + refused.length).toBe(321);
    expect(accepted.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect([429, 503]).toContain(answer.status);
      expect(answer.retryAfter).toMatch(/^\d+$/);
    }
    // Queued ingest: what was acknowledged is grouped by the digest (the worker, or this drain).
    await digestQueued(faultline);
    // Read through a connection of our own: every acknowledged event is there, once.
    const { rows } = await admin.query<{ event_id: string; copies: string }>(
      `SELECT event_id, count(*) AS copies FROM ${quoteIdentifier((await schemaOf(faultline)) as string)}.events WHERE event_id = ANY($1) GROUP BY event_id`,
      [accepted],
    );
    expect(rows).toHaveLength(accepted.length);
    expect(rows.filter((row) => Number(row.copies) !== 1)).toEqual([]);
  });

  it("delivery while every connection is terminated mid-drain: every delivery arrives, each exactly once, and is recorded delivered", async () => {
    // Each answer takes a little while, so the drain spans many terminations.
    const receiver = await startReceiver(Array.from({ length: 60 }, () => ({ status: 200, delayMs: 10 })));
    cleanups.push(receiver.close);
    const seeder = await openInstance({ worker: false });
    const seeded = await seedOrganization(seeder.faultline);
    await subscribe(seeder.faultline, "acme", receiver.url);
    const capture = captureFor(seeder.faultline, { id: seeded.project.id, organizationId: seeded.organization.id });
    for (let i = 0; i < 60; i++) await capture(errorEvent({ fingerprint: [`drain-${i}`] }));
    const db = seeder.faultline.container.resolve(tokens.Db);
    const ids = (await db.selectFrom("deliveries").select("id").execute()).map((row) => row.id);
    expect(ids).toHaveLength(60);

    // A worker instance on the same schema drains them in small slices while its connections are cut.
    // A short timeoutMs keeps the lease (timeoutMs + 30 s) short: a claim whose reply was lost is re-claimed after it.
    const worker = await openInstance({
      schema: seeder.schema,
      autoMigrate: false,
      delivery: { allowPrivateNetworks: true, concurrency: 4, pollIntervalMs: 200, timeoutMs: 1_000 },
    });
    let terminated = 0;
    // Cuts for at most 10 s: outcomes are retried until recorded for as long as a claim's lease
    // lasts (30 s past the send), and an outage longer than that is sent again by design (at least
    // once). On a loaded machine 400 cuts could outlast the lease and make this test flaky.
    const cutUntil = Date.now() + 10_000;
    while (receiver.received.length < 60 && terminated <= 400 && Date.now() < cutUntil) {
      terminated += (await terminateBackends(worker.applicationName)).length;
      await sleep(30);
    }
    expect(terminated).toBeGreaterThan(0);
    await receiver.until((all) => new Set(all.map((r) => String(r.headers["webhook-id"]))).size === 60, 45_000);
    await waitFor(
      async () =>
        (await db.selectFrom("deliveries").select("status").where("status", "!=", "delivered").execute()).length === 0,
      45_000,
      "every delivery recorded delivered",
    );
    const received = receiver.received.map((r) => String(r.headers["webhook-id"]));
    expect([...received].sort()).toEqual([...ids].sort());
  });

  it("a host's Pool without an 'error' listener: terminated connections do not end the process; Faultline's listeners leave with close() and the pool stays open", async () => {
    const applicationName = `faultline_resilience_${randomHex(4)}`;
    const hostPool = new pg.Pool({
      connectionString: withApplicationName(serverUrl as string, applicationName),
      max: 4,
    });
    cleanups.push(() => hostPool.end());
    const schema = `faultline_test_${randomHex(6)}`;
    const faultline = createFaultline({ logger: silentLogger, database: hostPool, schema });
    cleanups.push(async () => {
      await faultline.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    });
    await faultline.ready();
    await Promise.all([
      faultline.api.organizations.create({ slug: "acme" }),
      faultline.api.organizations.create({ slug: "globex" }),
    ]);
    expect([hostPool.listenerCount("error"), hostPool.listenerCount("connect")]).toEqual([1, 1]);
    await waitFor(async () => isListening(await backendsOf(applicationName)), 5_000, "LISTEN connection");

    const terminated = await terminateBackends(applicationName);
    expect(terminated.length).toBeGreaterThanOrEqual(2);
    await untilReconnected(applicationName, terminated);
    expect(await faultline.api.organizations.get("acme")).toMatchObject({ slug: "acme" });

    await faultline.close();
    expect([
      hostPool.listenerCount("error"),
      hostPool.listenerCount("connect"),
      hostPool.listenerCount("remove"),
    ]).toEqual([0, 0, 0]);
    expect((await hostPool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });
});

async function schemaOf(faultline: Faultline<FaultlineApi>): Promise<string> {
  return faultline.container.resolve(tokens.Options).schema;
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
