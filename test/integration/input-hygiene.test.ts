import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { z } from "zod";
import { defineEndpoint, definePlugin, SCOPES, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Issue #13, findings 2, 3, 4 and 7: NUL bytes, lone surrogates, deep nesting, out-of-range
 * timestamps and very long URLs. API inputs get a 400/414 naming the problem; ingested events are
 * normalised (as Sentry's Relay does) and stored, never lost.
 */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const NUL = "\u0000";
const LONE = "\ud800";
/** Every kind of bad text at once: a NUL, a lone high surrogate and a lone low surrogate. */
const BAD = `bad${NUL}x${LONE}y\udc00z`;
const newEventId = () => randomUUID().replaceAll("-", "");

/** JSON text nested `depth` levels deep (`{"a":{"a":…}}`), built as text: JSON.stringify would overflow the stack. */
const deepObjectText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const deepArrayText = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
/** `JSON.stringify(value)` with the string `"<marker>"` replaced by raw JSON text. */
const withRaw = (value: unknown, marker: string, raw: string) =>
  JSON.stringify(value).replace(JSON.stringify(marker), raw);

describe("input hygiene (issue #13)", () => {
  const now = Date.UTC(2026, 10, 22, 10, 33, 15);
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;
  let project: { id: string; key: string; organizationId: string };
  let issueId: string;
  let scimToken: string;

  const db = () => instance.faultline.container.resolve(tokens.Db);
  const request = (
    path: string,
    init: { method?: string; body?: string; token?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: init.method ?? "GET",
      body: init.body,
      headers: { ...bearer(init.token ?? token), "Content-Type": "application/json", ...init.headers },
    });
  const expectDetail = async (response: Response, status: number, detail: RegExp | string) => {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    const body = JSON.parse(text);
    if (typeof detail === "string") expect(body.detail).toBe(detail);
    else expect(body.detail).toMatch(detail);
    return body;
  };

  beforeAll(async () => {
    instance = await createTestInstance({ clock: { now: () => new Date(now) }, worker: false, logger: silentLogger });
    const { api } = instance.faultline;
    const organization = await api.organizations.create({ slug: "acme", plan: "business", samlConfigured: true });
    const owner = await api.users.create({ username: "owner", email: "owner@acme.test" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    const created = await api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    project = { id: created.id, key: created.keys[0]?.public as string, organizationId: organization.id };
    await captureFor(instance.faultline, project)(errorEvent());
    issueId = String((await db().selectFrom("issues").select("id").executeTakeFirstOrThrow()).id);
    scimToken = (await instance.faultline.api.scim.enable("acme")).token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  describe("finding 2: NUL and lone surrogates in API inputs → 400 naming the field", () => {
    it("in a path segment", async () => {
      await expectDetail(
        await request("/api/0/organizations/%00/projects/"),
        400,
        "Invalid request: organization_id_or_slug: contains a NUL character",
      );
      await expectDetail(
        await request("/api/0/projects/acme/we%00b/"),
        400,
        "Invalid request: project_id_or_slug: contains a NUL character",
      );
    });

    it("in a query value or key", async () => {
      const body = await expectDetail(
        await request("/api/0/organizations/acme/issues/?query=%00"),
        400,
        "Invalid request: query: contains a NUL character",
      );
      expect(body.errors).toEqual({ query: ["contains a NUL character"] });
      await expectDetail(
        await request("/api/0/organizations/acme/issues/?qu%00ery=1"),
        400,
        /^Invalid request: qu\uFFFDery: key contains a NUL character$/,
      );
    });

    it("in a JSON string value, nested, or in an object key; nothing is written", async () => {
      await expectDetail(
        await request("/api/0/api-tokens/", {
          method: "POST",
          body: JSON.stringify({ name: `a${NUL}b`, scopes: ["org:read"] }),
        }),
        400,
        "Invalid request: name: contains a NUL character",
      );
      await expectDetail(
        await request("/api/0/api-tokens/", {
          method: "POST",
          body: JSON.stringify({ name: "ok", scopes: ["org:read", `x${NUL}`] }),
        }),
        400,
        "Invalid request: scopes.1: contains a NUL character",
      );
      await expectDetail(
        await request("/api/0/api-tokens/", {
          method: "POST",
          body: JSON.stringify({ name: "ok", scopes: ["org:read"], [`n${NUL}`]: 1 }),
        }),
        400,
        /^Invalid request: n\uFFFD: key contains a NUL character$/,
      );
      const comments = `/api/0/organizations/acme/issues/${issueId}/comments/`;
      await expectDetail(
        await request(comments, { method: "POST", body: JSON.stringify({ text: `hello ${LONE}` }) }),
        400,
        "Invalid request: text: contains an unpaired UTF-16 surrogate",
      );
      await expectDetail(
        await request(comments, { method: "POST", body: JSON.stringify({ text: `hello ${NUL}` }) }),
        400,
        "Invalid request: text: contains a NUL character",
      );
      const count = await db()
        .selectFrom("issue_comments")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
      // Well-formed astral characters (a surrogate pair) are fine.
      expect((await request(comments, { method: "POST", body: JSON.stringify({ text: "ship it 🚀" }) })).status).toBe(
        201,
      );
    });

    it("in SCIM attributes → a SCIM error", async () => {
      for (const userName of [`nul${NUL}@acme.test`, `lone${LONE}@acme.test`]) {
        const response = await request("/api/0/organizations/acme/scim/v2/Users", {
          method: "POST",
          token: scimToken,
          headers: { "Content-Type": "application/scim+json" },
          body: JSON.stringify({ schemas: [USER], userName, name: { givenName: "x", familyName: userName } }),
        });
        const text = await response.text();
        expect(response.status, text).toBe(400);
        const body = JSON.parse(text);
        expect(body).toMatchObject({ schemas: [SCIM_ERROR], status: "400", scimType: "invalidValue" });
        expect(body.detail).toMatch(
          /^Invalid request: userName: contains (a NUL character|an unpaired UTF-16 surrogate)$/,
        );
      }
      const filtered = await request(
        `/api/0/organizations/acme/scim/v2/Users?filter=${encodeURIComponent('userName eq "\\u0000"')}`,
        { token: scimToken },
      );
      expect(filtered.status).toBe(400);
      expect(await filtered.json()).toMatchObject({ schemas: [SCIM_ERROR], scimType: "invalidFilter" });
    });
  });

  describe("finding 3: deep nesting", () => {
    it("a JSON body nested 10,000 levels → 400 saying so", async () => {
      for (const raw of [deepObjectText(10_000), deepArrayText(10_000)]) {
        const body = withRaw({ name: "deep", scopes: ["org:read"], extra: "DEEP" }, "DEEP", raw);
        await expectDetail(
          await request("/api/0/api-tokens/", { method: "POST", body }),
          400,
          /^Invalid request: extra(\.([a0]|…))+: nested deeper than 32 levels$/,
        );
      }
      const scim = await request("/api/0/organizations/acme/scim/v2/Users", {
        method: "POST",
        token: scimToken,
        headers: { "Content-Type": "application/scim+json" },
        body: withRaw(
          { schemas: [USER], userName: "deep@acme.test", "urn:example:ext": "DEEP" },
          "DEEP",
          deepObjectText(10_000),
        ),
      });
      expect(scim.status).toBe(400);
      expect(await scim.json()).toMatchObject({ schemas: [SCIM_ERROR], status: "400" });
    });

    it("a SCIM filter with thousands of parentheses → a SCIM 4xx, never a 500", async () => {
      const nested = (depth: number) => `${"(".repeat(depth)}userName eq "x"${")".repeat(depth)}`;
      const huge = await request(`/api/0/organizations/acme/scim/v2/Users?filter=${nested(7000)}`, {
        token: scimToken,
      });
      expect([400, 414]).toContain(huge.status);
      expect(await huge.json()).toMatchObject({ schemas: [SCIM_ERROR] });
      const deep = await request(`/api/0/organizations/acme/scim/v2/Users?filter=${nested(100)}`, { token: scimToken });
      expect(deep.status).toBe(400);
      const body = await deep.json();
      expect(body).toMatchObject({ schemas: [SCIM_ERROR], scimType: "invalidFilter" });
      expect(body.detail).toMatch(/nested deeper than/);
      const fine = await request(`/api/0/organizations/acme/scim/v2/Users?filter=${nested(5)}`, { token: scimToken });
      expect(fine.status).toBe(200);
    });
  });

  describe("finding 7: very long URLs", () => {
    it("a list whose Link header would overflow HTTP clients → 414 with a detail (was a 20 KB Link header)", async () => {
      const response = await request(`/api/0/organizations/acme/projects/?query=${"a".repeat(10_000)}`);
      const body = await expectDetail(
        response,
        414,
        /^Request URI too long \(\d+ characters; limit 6144 for a paginated list, whose Link header repeats it\)$/,
      );
      expect(body).toEqual({ detail: body.detail });
    });

    it("any URL past limits.urlLength → 414, on SCIM routes as a SCIM error", async () => {
      // Node's own server stops at 16 KiB of headers (431), so this goes to the handler directly.
      const long = `?query=${"a".repeat(17_000)}`;
      const plain = await instance.faultline.handler(
        new Request(`http://localhost/api/0/organizations/acme/${long}`, { headers: bearer(token) }),
      );
      await expectDetail(plain, 414, /^Request URI too long \(\d+ characters; limit 16384\)$/);
      const scim = await instance.faultline.handler(
        new Request(`http://localhost/api/0/organizations/acme/scim/v2/Users${long}`, { headers: bearer(scimToken) }),
      );
      expect(scim.status).toBe(414);
      expect(await scim.json()).toMatchObject({ schemas: [SCIM_ERROR], status: "414" });
    });

    it("a list URL within the limit gets a Link header no longer than the URL twice, whatever its characters", async () => {
      const query = `?note=${"(!)~".repeat(1400)}`;
      const response = await request(`/api/0/organizations/acme/projects/${query}`);
      expect(response.status).toBe(200);
      const link = response.headers.get("link") as string;
      expect(link).toContain(query);
      expect(link.length).toBeLessThan(2 * (server.url.length + 40 + query.length) + 300);
    });

    it("a bulk mutation naming 1000 issue ids is not refused for its URL length", async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `id=${1_000_000 + i}`).join("&");
      const response = await request(`/api/0/organizations/acme/issues/?${ids}`, {
        method: "PUT",
        body: JSON.stringify({ status: "resolved" }),
      });
      expect(response.status).toBe(204);
    });
  });

  describe("ingest: events are normalised and stored, never lost (findings 2, 3, 4)", () => {
    const envelopeUrl = () => `${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`;
    const storeUrl = () => `${server.url}/api/${project.id}/store/?sentry_key=${project.key}`;
    const envelope = (eventText: string, eventId: string) =>
      [JSON.stringify({ event_id: eventId }), '{"type":"event"}', eventText].join("\n");
    /** The stored event, once the digest has run over what was acknowledged (queued ingest). */
    const stored = async (eventId: string) => {
      await instance.faultline.worker.runDue("ingest.digest");
      return db().selectFrom("events").selectAll().where("event_id", "=", eventId).executeTakeFirst();
    };

    /** An event with bad text in every field an SDK fills, bad keys, a 10,000-level value and a year-0000 timestamp. */
    function hostileEvent(eventId: string): string {
      const bag = { [BAD]: BAD, plain: BAD };
      const event = {
        event_id: eventId,
        timestamp: "0000-01-01T00:00:00Z",
        platform: BAD,
        level: BAD,
        logger: BAD,
        server_name: BAD,
        release: BAD,
        dist: BAD,
        environment: BAD,
        transaction: BAD,
        culprit: BAD,
        message: BAD,
        logentry: { message: BAD, params: [BAD] },
        exception: {
          values: [
            {
              type: BAD,
              value: BAD,
              module: BAD,
              mechanism: { type: BAD, data: bag },
              stacktrace: {
                frames: [
                  {
                    filename: BAD,
                    abs_path: BAD,
                    function: BAD,
                    module: BAD,
                    context_line: BAD,
                    pre_context: [BAD],
                    vars: bag,
                    in_app: true,
                  },
                ],
              },
            },
          ],
        },
        tags: { [BAD]: BAD, plain: BAD },
        user: { id: BAD, email: BAD, username: BAD, ip_address: BAD, name: BAD, data: bag },
        extra: { ...bag, deep: "DEEP" },
        contexts: { os: { name: BAD, version: BAD }, [BAD]: bag },
        breadcrumbs: { values: [{ type: BAD, category: BAD, message: BAD, level: BAD, data: bag, timestamp: BAD }] },
        request: { url: BAD, method: BAD, query_string: BAD, headers: bag, data: BAD, cookies: BAD, env: bag },
        fingerprint: [BAD, "{{ default }}"],
        modules: bag,
        sdk: { name: BAD, version: BAD, integrations: [BAD] },
      };
      return withRaw(event, "DEEP", deepObjectText(10_000));
    }

    /** The stored payload has no NUL and no lone surrogate anywhere (keys included), and is bounded in depth. */
    function expectClean(payload: unknown) {
      const text = JSON.stringify(payload);
      expect(text).not.toMatch(
        /\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i,
      );
      expect(text).toContain("\uFFFD");
    }

    async function expectNormalised(eventId: string) {
      const row = await stored(eventId);
      expect(row, "the acknowledged event is stored").toBeDefined();
      if (!row) return;
      expectClean(row.payload);
      for (const column of [
        row.title,
        row.culprit,
        row.message,
        row.environment,
        row.release,
        row.dist,
        row.platform,
      ]) {
        expect(column === null || !column.includes(NUL)).toBe(true);
      }
      expect(row.timestamp).toEqual(new Date(now));
      const payload = row.payload as Record<string, unknown>;
      const errors = payload.errors as Array<Record<string, unknown>>;
      expect(errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: "past_timestamp", name: "timestamp", value: "0000-01-01T00:00:00Z" }),
          expect.objectContaining({ type: "invalid_data", name: expect.any(String) }),
        ]),
      );
      // The 10,000-level value is cut at the depth cap, the rest of `extra` is kept.
      let deep = (payload.extra as Record<string, unknown>).deep;
      let depth = 2;
      while (typeof deep === "object" && deep !== null) {
        deep = (deep as Record<string, unknown>).a;
        depth += 1;
      }
      expect(deep).toBe("[Object]");
      expect(depth).toBeLessThanOrEqual(33);
      expect((payload.extra as Record<string, unknown>).plain).toBe("bad\uFFFDx\uFFFDy\uFFFDz");
      return row;
    }

    it("an envelope event with NUL, lone surrogates, 10,000-level nesting and a year-0000 timestamp → 200, stored normalised", async () => {
      const eventId = newEventId();
      const response = await fetch(envelopeUrl(), { method: "POST", body: envelope(hostileEvent(eventId), eventId) });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
      const row = await expectNormalised(eventId);
      expect(row?.environment).toBe("bad\uFFFDx\uFFFDy\uFFFDz");
      expect(row?.tags).toEqual(expect.arrayContaining([["plain", "bad\uFFFDx\uFFFDy\uFFFDz"]]));

      // The events API serves it (detail and raw JSON).
      const detail = await request(`/api/0/projects/acme/api/events/${eventId}/`);
      expect(detail.status, await detail.clone().text()).toBe(200);
      const shown = await detail.json();
      expect(shown.dateCreated).toBe(new Date(now).toISOString());
      expect(shown.errors).toEqual(
        expect.arrayContaining([
          {
            type: "past_timestamp",
            message: expect.stringContaining("30 days"),
            data: { name: "timestamp", value: "0000-01-01T00:00:00Z" },
          },
          {
            type: "invalid_data",
            message: "contained a NUL character (replaced by U+FFFD)",
            data: { name: "platform" },
          },
        ]),
      );
      const json = await request(`/api/0/projects/acme/api/events/${eventId}/json/`);
      expect(json.status).toBe(200);
      expectClean(await json.json());
    });

    it("the same through the legacy store endpoint", async () => {
      const eventId = newEventId();
      const response = await fetch(storeUrl(), { method: "POST", body: hostileEvent(eventId) });
      expect(response.status, await response.clone().text()).toBe(200);
      await expectNormalised(eventId);
    });

    it("finding 4: out-of-range, future and unparseable timestamps are clamped to the receive time, with an error recorded", async () => {
      const cases: Array<[unknown, string]> = [
        ["0000-01-01T00:00:00Z", "past_timestamp"],
        [-62_198_755_200, "past_timestamp"],
        ["-271821-04-20T00:00:00Z", "past_timestamp"],
        ["9999-12-31T23:59:59Z", "future_timestamp"],
        [1e20, "invalid_data"],
        ["yesterday-ish", "invalid_data"],
      ];
      for (const [timestamp, type] of cases) {
        const eventId = newEventId();
        const response = await fetch(storeUrl(), {
          method: "POST",
          body: JSON.stringify({ ...errorEvent(), event_id: eventId, timestamp }),
        });
        expect(response.status, `${String(timestamp)}: ${await response.clone().text()}`).toBe(200);
        const row = await stored(eventId);
        expect(row?.timestamp, String(timestamp)).toEqual(new Date(now));
        expect((row?.payload as { errors?: unknown }).errors).toEqual([
          expect.objectContaining({ type, name: "timestamp", value: timestamp }),
        ]);
      }
      // A recent timestamp is kept as sent, and nothing is recorded.
      const eventId = newEventId();
      await fetch(storeUrl(), {
        method: "POST",
        body: JSON.stringify({ ...errorEvent(), event_id: eventId, timestamp: now / 1000 - 3600 }),
      });
      const row = await stored(eventId);
      expect(row?.timestamp).toEqual(new Date(now - 3_600_000));
      expect((row?.payload as { errors?: unknown }).errors).toBeUndefined();
    });
  });

  describe("host plugins get the same policy, and a database data exception that escapes it is a 400", () => {
    const received: unknown[] = [];
    const hostPlugin = definePlugin({
      id: "host-notes",
      endpoints: [
        defineEndpoint({
          method: "POST",
          path: "/api/0/host-notes/",
          operationId: "hostNotes.create",
          auth: "none",
          body: z.object({ note: z.string() }).passthrough(),
          handler: ({ body }) => {
            received.push(body);
            return { status: 201, body: { ok: true } };
          },
        }),
        defineEndpoint({
          method: "GET",
          path: "/api/0/host-notes/cast/",
          operationId: "hostNotes.cast",
          auth: "none",
          query: z.object({ value: z.string() }),
          handler: async ({ query, container }) => {
            // A host query the policy cannot know about: casting arbitrary text (22P02 on bad input).
            const { rows } = await sql<{ n: number }>`select ${query.value}::int as n`.execute(
              container.resolve(tokens.Db),
            );
            return { body: rows[0] };
          },
        }),
      ],
    });
    let host: TestInstance<[typeof hostPlugin]>;
    let hostServer: RunningServer;

    beforeAll(async () => {
      host = await createTestInstance({ worker: false, logger: silentLogger, plugins: [hostPlugin] });
      hostServer = await serveFaultline(host.faultline);
    });
    afterAll(async () => {
      await hostServer?.close();
      await host?.close();
    });

    it("refuses NUL, lone surrogates and deep nesting in a host endpoint's body, without code of its own", async () => {
      const post = (body: string) =>
        fetch(`${hostServer.url}/api/0/host-notes/`, {
          method: "POST",
          body,
          headers: { "Content-Type": "application/json" },
        });
      await expectDetail(
        await post(JSON.stringify({ note: `x${NUL}` })),
        400,
        "Invalid request: note: contains a NUL character",
      );
      await expectDetail(
        await post(JSON.stringify({ note: "ok", meta: { tags: ["a", `b${LONE}`] } })),
        400,
        "Invalid request: meta.tags.1: contains an unpaired UTF-16 surrogate",
      );
      await expectDetail(
        await post(withRaw({ note: "ok", meta: "DEEP" }, "DEEP", deepArrayText(40))),
        400,
        /nested deeper than 32 levels$/,
      );
      expect(received).toEqual([]);
      expect((await post(JSON.stringify({ note: "fine", meta: { tags: ["🚀"] } }))).status).toBe(201);
    });

    it("a PostgreSQL data exception (SQLSTATE class 22) renders 400 with an errorId, not 500", async () => {
      const ok = await fetch(`${hostServer.url}/api/0/host-notes/cast/?value=42`);
      expect(await ok.json()).toEqual({ n: 42 });
      const bad = await fetch(`${hostServer.url}/api/0/host-notes/cast/?value=forty-two`);
      const body = await expectDetail(bad, 400, "Invalid request: a value was refused by the database");
      expect(body.errorId).toMatch(/^[0-9a-f]{32}$/);
      expect(bad.headers.get("x-request-id")).toBe(body.errorId);
    });
  });
});
