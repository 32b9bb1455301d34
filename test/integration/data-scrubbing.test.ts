import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { IngestWorkerPoolToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Data scrubbing (docs/data-scrubbing.md) over real HTTP: the project's settings through the
 * project detail and `PUT`, and — the property — a secret sent anywhere in an event is found in
 * no text or JSON column of any table of the schema, neither once the event is queued nor once
 * it is digested, in queued and in direct mode.
 */

type Json = Record<string, unknown>;
type Placement = { where: string; event: (secret: string) => Json };

/** Where SDKs put secrets: each place, with a sensitive key (or a card number in text). */
function placements(key: string): Placement[] {
  return [
    { where: "extra", event: (s) => ({ extra: { [key]: s, other: "kept" } }) },
    { where: "nested extra", event: (s) => ({ extra: { config: { db: { [key]: s } } } }) },
    {
      where: "breadcrumb data",
      event: (s) => ({ breadcrumbs: { values: [{ message: "login", data: { [key]: s } }] } }),
    },
    { where: "request headers", event: (s) => ({ request: { headers: { [key]: `Bearer ${s}` } } }) },
    {
      where: "header pairs",
      event: (s) => ({
        request: {
          headers: [
            ["Accept", "*/*"],
            [key, s],
          ],
        },
      }),
    },
    { where: "cookie header", event: (s) => ({ request: { headers: { Cookie: `theme=dark; sid=${s}` } } }) },
    { where: "request body", event: (s) => ({ request: { method: "POST", data: { user: "jane", [key]: s } } }) },
    { where: "form body text", event: (s) => ({ request: { data: `user=jane&password=${s}` } }) },
    { where: "query string", event: (s) => ({ request: { url: "https://app.test/x", query_string: `token=${s}` } }) },
    { where: "cookies", event: (s) => ({ request: { cookies: { sessionid: s } } }) },
    {
      where: "frame vars",
      event: (s) => errorEvent({}, [{ filename: "app.js", function: "login", lineno: 3, vars: { [key]: s } }]),
    },
    { where: "tags", event: (s) => ({ tags: { [key]: s, region: "eu" } }) },
    { where: "tag pairs", event: (s) => ({ tags: [[key, s]] }) },
    { where: "user", event: (s) => ({ user: { id: "u1", [key]: s } }) },
    { where: "user data", event: (s) => ({ user: { id: "u1", data: { [key]: s } } }) },
    { where: "contexts", event: (s) => ({ contexts: { app: { [key]: s } } }) },
  ];
}

/** Places a card number ends up in as text: messages, exception values, breadcrumbs, anything. */
const cardPlacements: Placement[] = [
  { where: "message", event: (card) => ({ message: `charged ${card} ok` }) },
  {
    where: "exception value",
    event: (card) => ({ exception: { values: [{ type: "PaymentError", value: `declined: ${card}` }] } }),
  },
  { where: "breadcrumb message", event: (card) => ({ breadcrumbs: [{ message: `card ${card}` }] }) },
  { where: "extra text", event: (card) => ({ extra: { note: `paid with ${card}` } }) },
  { where: "tag value", event: (card) => ({ tags: { payment: card } }) },
];

const sensitiveKey = fc
  .tuple(
    fc.constantFrom("", "x_", "db.", "My"),
    fc.constantFrom(
      "password",
      "secret",
      "passwd",
      "api_key",
      "apikey",
      "Authorization",
      "credentials",
      "mysql_pwd",
      "privatekey",
      "private_key",
      "token",
      "Set-Cookie",
      "session",
    ),
    fc.constantFrom("", "_2", "Value"),
  )
  .map(([prefix, word, suffix]) => `${prefix}${word}${suffix}`);
/** A marker no event or fixture contains by chance. */
const secret = fc.stringMatching(/^[a-z0-9]{14}$/).map((tail) => `Zq9${tail}`);
/** A Luhn-valid 16-digit card number starting with 4, grouped or not. */
const cardNumber = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 }), fc.boolean())
  .map(([digits, grouped]) => {
    const body = [4, ...digits];
    const sum = body
      .slice()
      .reverse()
      .reduce(
        (total, digit, index) => total + (index % 2 === 0 ? (digit * 2 > 9 ? digit * 2 - 9 : digit * 2) : digit),
        0,
      );
    const number = [...body, (10 - (sum % 10)) % 10].join("");
    return grouped ? number.replace(/(\d{4})(?=\d)/g, "$1 ") : number;
  });

const deepMerge = (a: Json, b: Json): Json => {
  const merged: Json = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = merged[key];
    merged[key] =
      typeof existing === "object" &&
      existing &&
      !Array.isArray(existing) &&
      typeof value === "object" &&
      value &&
      !Array.isArray(value)
        ? deepMerge(existing as Json, value as Json)
        : value;
  }
  return merged;
};

const textColumns = new WeakMap<TestInstance, Map<string, string[]>>();

/** Every text, character, JSON and array column of every table in the instance's schema (the schema does not change: read once). */
async function columnsOf(instance: TestInstance): Promise<Map<string, string[]>> {
  const known = textColumns.get(instance);
  if (known) return known;
  const columns = await sql<{ table_name: string; column_name: string }>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = ${instance.schema} AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')
    ORDER BY 1, 2`.execute(instance.faultline.container.resolve(tokens.Db));
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns.rows)
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  expect(byTable.has("ingest_queue") && byTable.has("events") && byTable.has("issues")).toBe(true);
  textColumns.set(instance, byTable);
  return byTable;
}

/** The tables (of `only`, or all of them) with a row holding `needle` in one of those columns. */
async function tablesHolding(instance: TestInstance, needle: string, only?: string): Promise<string[]> {
  const db = instance.faultline.container.resolve(tokens.Db);
  const found: string[] = [];
  for (const [table, names] of await columnsOf(instance)) {
    if (only !== undefined && table !== only) continue;
    const where = sql.join(
      names.map((name) => sql`${sql.ref(name)}::text LIKE ${`%${needle}%`}`),
      sql` OR `,
    );
    const hits = await sql<{ n: string | number }>`
      SELECT count(*) AS n FROM ${sql.table(`${instance.schema}.${table}`)} WHERE ${where}`.execute(db);
    if (Number(hits.rows[0]?.n) > 0) found.push(table);
  }
  return found;
}

/** Queued ingest accepts in worker threads or inline on the host's thread (docs/ingest.md): both scrub. */
function scrubbingSuite(mode: "queued" | "direct", isolation: "threads" | "inline" = "inline") {
  describe(`data scrubbing, ${mode} ingest${mode === "queued" ? `, ${isolation}` : ""}`, () => {
    let instance: TestInstance;
    let server: RunningServer;
    let acme: Awaited<ReturnType<typeof seedOrganization>>;
    let dsnKey: string;

    beforeAll(async () => {
      instance = await createTestInstance({ worker: false, ingest: { queued: mode === "queued", isolation } });
      acme = await seedOrganization(instance.faultline, "acme");
      dsnKey = acme.project.keys[0]?.public as string;
      server = await serveFaultline(instance.faultline);
    });
    afterAll(async () => {
      await server?.close();
      await instance?.close();
    });

    const projectUrl = () => `${server.url}/api/0/projects/acme/web/`;
    async function putSettings(body: Json) {
      const response = await fetch(projectUrl(), {
        method: "PUT",
        headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Json };
    }

    /** Sends an envelope over HTTP, checks the queue holds no secret, then digests. */
    async function sendAndDigest(event: Json, needle: string, expectInQueue = false): Promise<string> {
      const eventId = randomUUID().replaceAll("-", "");
      const body = { ...deepMerge(errorEvent(), event), event_id: eventId };
      const envelope = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(body)].join("\n");
      const response = await fetch(`${server.url}/api/${acme.project.id}/envelope/?sentry_key=${dsnKey}`, {
        method: "POST",
        body: envelope,
      });
      expect(response.status).toBe(200);
      // Queued: the row waiting for the digest holds no secret either (the queue is a table too).
      if (mode === "queued")
        expect(await tablesHolding(instance, needle, "ingest_queue")).toEqual(expectInQueue ? ["ingest_queue"] : []);
      await instance.faultline.worker.runDue("ingest.digest");
      return eventId;
    }

    it("a secret under a sensitive key, anywhere in the event, reaches no column of any table", async () => {
      await fc.assert(
        fc.asyncProperty(
          sensitiveKey.chain((key) => fc.constantFrom(...placements(key))),
          secret,
          async (placement, value) => {
            const eventId = await sendAndDigest(placement.event(value), value);
            expect(await tablesHolding(instance, eventId, "events")).toEqual(["events"]); // it was stored
            expect(await tablesHolding(instance, value), placement.where).toEqual([]);
          },
        ),
        { numRuns: 25 },
      );
    }, 180_000);

    it("a Luhn-valid card number in any text reaches no column of any table", async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...cardPlacements), cardNumber, async (placement, card) => {
          await sendAndDigest(placement.event(card), card);
          expect(await tablesHolding(instance, card), placement.where).toEqual([]);
        }),
        { numRuns: 10 },
      );
    }, 120_000);

    it("off means off: with dataScrubber false the same secret is stored (the scan finds what is there)", async () => {
      expect((await putSettings({ dataScrubber: false })).status).toBe(200);
      try {
        const value = `Zq9off${randomUUID().slice(0, 8)}`;
        await sendAndDigest({ extra: { password: value } }, value, true);
        expect(await tablesHolding(instance, value)).toContain("events");
      } finally {
        expect((await putSettings({ dataScrubber: true })).status).toBe(200);
      }
    });

    it("scrubIPAddresses: the user's address is removed before it is stored", async () => {
      expect((await putSettings({ scrubIPAddresses: true })).status).toBe(200);
      try {
        await sendAndDigest({ user: { id: "u-ip", ip_address: "198.51.100.77" } }, "198.51.100.77");
        expect(await tablesHolding(instance, "198.51.100.77")).toEqual([]);
      } finally {
        await putSettings({ scrubIPAddresses: false });
      }
    });

    it("the stored event reads [Filtered] with Sentry's _meta remark; in-process capture is scrubbed too", async () => {
      const eventId = await sendAndDigest({ extra: { api_key: "k-123456" } }, "k-123456");
      const raw = (await (
        await fetch(`${projectUrl()}events/${eventId}/json/`, { headers: bearer(acme.allScopesToken) })
      ).json()) as Json;
      expect(raw.extra).toEqual({ api_key: "[Filtered]" });
      expect(raw._meta).toEqual({ extra: { api_key: { "": { rem: [["@password:filter", "s", 0, 10]], len: 8 } } } });

      await instance.faultline.api.events.capture(
        { organization: "acme", project: "web" },
        errorEvent({ extra: { password: "Zq9inprocess" } }),
      );
      await instance.faultline.worker.runDue("ingest.digest");
      expect(await tablesHolding(instance, "Zq9inprocess")).toEqual([]);
      // The threaded suite's events really went through the threads (the worker's file is built for the test run).
      const threads = instance.faultline.container.resolve(IngestWorkerPoolToken).running;
      expect(threads > 0).toBe(mode === "queued" && isolation === "threads");
    });
  });
}

scrubbingSuite("queued", "threads");
scrubbingSuite("queued", "inline");
scrubbingSuite("direct");

describe("data scrubbing settings on the project detail and PUT", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    acme = await seedOrganization(instance.faultline, "acme");
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const url = () => `${server.url}/api/0/projects/acme/web/`;
  const get = async () => (await (await fetch(url(), { headers: bearer(acme.allScopesToken) })).json()) as Json;
  const put = async (body: unknown) => {
    const response = await fetch(url(), {
      method: "PUT",
      headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const settingsOf = (detail: Json) => ({
    dataScrubber: detail.dataScrubber,
    dataScrubberDefaults: detail.dataScrubberDefaults,
    scrubIPAddresses: detail.scrubIPAddresses,
    sensitiveFields: detail.sensitiveFields,
    safeFields: detail.safeFields,
  });

  it("the event detail carries each remark where the API shows the scrubbed value (Sentry's _meta paths)", async () => {
    const frames = [{ filename: "app.js", function: "pay", lineno: 3, in_app: true, vars: { secret: "Zq9frame" } }];
    const event = errorEvent(
      {
        extra: { password: "Zq9extra" },
        user: { id: "u-1", email: "u@example.com", data: { token: "Zq9user" } },
        tags: { plan: "pro", api_key: "Zq9tag" },
        breadcrumbs: { values: [{ message: "paid with 4242 4242 4242 4242" }] },
        request: { url: "https://shop.example.com/pay", headers: { Accept: "*/*", Authorization: "Bearer Zq9header" } },
      },
      frames,
    );
    const { eventId } = await instance.faultline.api.events.capture({ organization: "acme", project: "web" }, event);
    await instance.faultline.worker.runDue("ingest.digest");
    const detail = (await (
      await fetch(`${url()}events/${eventId}/`, { headers: bearer(acme.allScopesToken) })
    ).json()) as {
      _meta: Json;
      entries: Array<{ type: string }>;
      tags: Array<{ key: string; value: string }>;
      context: Json;
    };
    const filtered = { "": { rem: [["@password:filter", "s", 0, 10]], len: expect.any(Number) } };
    const at = (type: string) => String(detail.entries.findIndex((entry) => entry.type === type));
    expect(detail.context.password).toBe("[Filtered]");
    expect(detail._meta.context).toEqual({ password: filtered });
    expect(detail._meta.user).toMatchObject({ data: { token: filtered } });
    const tagIndex = String(detail.tags.findIndex((tag) => tag.key === "api_key"));
    expect(detail.tags[Number(tagIndex)]?.value).toBe("[Filtered]");
    expect(detail._meta.tags).toEqual({ [tagIndex]: { value: filtered } });
    const entries = detail._meta.entries as Record<string, { data: Json }>;
    expect(entries[at("exception")]?.data).toEqual({
      values: { "0": { stacktrace: { frames: { "0": { vars: { secret: filtered } } } } } },
    });
    expect(entries[at("breadcrumbs")]?.data).toMatchObject({
      values: {
        "0": { message: { "": { rem: [["@creditcard:filter", "s", expect.any(Number), expect.any(Number)]] } } },
      },
    });
    // Headers are shown as sorted [key, value] pairs: Authorization is the second pair (index 1).
    expect(entries[at("request")]?.data).toEqual({ headers: { "1": { "1": filtered } } });
  });

  it("a project starts with Sentry's defaults: scrubbing on, default rules on, IP addresses kept", async () => {
    expect(settingsOf(await get())).toEqual({
      dataScrubber: true,
      dataScrubberDefaults: true,
      scrubIPAddresses: false,
      sensitiveFields: [],
      safeFields: [],
    });
  });

  it("PUT changes only what it gives, with the project's own fields, in one answer; GET shows it", async () => {
    const { status, body } = await put({ name: "Web app", sensitiveFields: ["acct_no"], scrubIPAddresses: true });
    expect(status).toBe(200);
    expect(body.name).toBe("Web app");
    const expected = {
      dataScrubber: true,
      dataScrubberDefaults: true,
      scrubIPAddresses: true,
      sensitiveFields: ["acct_no"],
      safeFields: [],
    };
    expect(settingsOf(body)).toEqual(expected);
    expect(settingsOf(await get())).toEqual(expected);
    expect((await put({ safeFields: ["token_count"], dataScrubberDefaults: false })).status).toBe(200);
    expect(settingsOf(await get())).toEqual({ ...expected, dataScrubberDefaults: false, safeFields: ["token_count"] });
  });

  it("bad values are a 400 naming the field, and change nothing (not the name either)", async () => {
    const before = await get();
    for (const body of [
      { name: "Renamed", dataScrubber: "yes" },
      { sensitiveFields: "password" },
      { safeFields: [""] },
      { scrubIPAddresses: null },
    ]) {
      const { status, body: error } = await put(body);
      expect(status).toBe(400);
      expect(String(error.detail)).toMatch(/dataScrubber|sensitiveFields|safeFields|scrubIPAddresses/);
    }
    expect(await get()).toEqual(before);
  });

  it("an organization's default (Sentry's organization settings): what it turns on, every project has on; its fields join the project's", async () => {
    const organizationUrl = `${server.url}/api/0/organizations/acme/`;
    const putOrganization = async (body: unknown, token = acme.allScopesToken) => {
      const response = await fetch(organizationUrl, {
        method: "PUT",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    await instance.faultline.api.projects.create({ organization: "acme", slug: "lax", platform: "node" });
    const lax = await fetch(`${server.url}/api/0/projects/acme/lax/`, {
      method: "PUT",
      headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
      body: JSON.stringify({ dataScrubber: false, dataScrubberDefaults: false }),
    });
    expect(lax.status).toBe(200);
    const capture = async () => {
      const event = errorEvent({ extra: { password: "Zq9org", order_ref: "Zq9order", plain: "kept" } });
      const { eventId } = await instance.faultline.api.events.capture({ organization: "acme", project: "lax" }, event);
      await instance.faultline.worker.runDue("ingest.digest");
      const detail = (await (
        await fetch(`${server.url}/api/0/projects/acme/lax/events/${eventId}/`, {
          headers: bearer(acme.allScopesToken),
        })
      ).json()) as { context: Json };
      return detail.context;
    };
    // Off in the project and nothing forced by the organization: stored as sent.
    expect(await capture()).toMatchObject({ password: "Zq9org", order_ref: "Zq9order" });

    expect(
      settingsOf((await (await fetch(organizationUrl, { headers: bearer(acme.allScopesToken) })).json()) as Json),
    ).toEqual({
      dataScrubber: false,
      dataScrubberDefaults: false,
      scrubIPAddresses: false,
      sensitiveFields: [],
      safeFields: [],
    });
    const bad = await putOrganization({ dataScrubber: "yes" });
    expect(bad.status).toBe(400);
    expect(String(bad.body.detail)).toContain("dataScrubber");
    const { status, body } = await putOrganization({
      dataScrubber: true,
      dataScrubberDefaults: true,
      sensitiveFields: ["order_ref"],
    });
    expect(status).toBe(200);
    expect(body.slug).toBe("acme");
    expect(settingsOf(body)).toMatchObject({ dataScrubber: true, sensitiveFields: ["order_ref"] });
    // The project's own settings are unchanged; what ingest applies is the combination.
    expect(
      (await (
        await fetch(`${server.url}/api/0/projects/acme/lax/`, { headers: bearer(acme.allScopesToken) })
      ).json()) as Json,
    ).toMatchObject({ dataScrubber: false });
    expect(await capture()).toMatchObject({ password: "[Filtered]", order_ref: "[Filtered]", plain: "kept" });
    // A token that may not write the organization cannot change it.
    expect((await putOrganization({ dataScrubber: false }, acme.orgReadToken)).status).toBe(403);
  });

  it("a slug conflict rolls back the settings given with it", async () => {
    await instance.faultline.api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    const before = await get();
    const { status } = await put({ slug: "api", dataScrubber: false });
    expect(status).toBe(409);
    expect(settingsOf(await get())).toEqual(settingsOf(before));
  });
});
