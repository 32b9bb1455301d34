import { randomUUID } from "node:crypto";
import { deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiOf, type FaultlinePlugin, tokens } from "../../src/index.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";
import { ingestPlugin } from "../../src/plugins/ingest/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";

/** Until `ingest` is a first-party plugin, add it here (adding it twice would be an id conflict). */
const ingestUnlessBuiltIn: FaultlinePlugin[] = (firstPartyPlugins as readonly FaultlinePlugin[]).some(
  (plugin) => plugin.id === "ingest",
)
  ? []
  : [ingestPlugin];

const MiB = 1024 * 1024;
const newEventId = () => randomUUID().replaceAll("-", "");

/** What @sentry/node 11 sends: envelope header, `{"type":"event"}`, the event; no trailing newline. */
function eventEnvelope(event: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const eventId = (event.event_id as string | undefined) ?? newEventId();
  return [
    JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString(), ...header }),
    '{"type":"event"}',
    JSON.stringify({ event_id: eventId, ...event }),
  ].join("\n");
}

const errorEvent = (value = "x is undefined") => ({
  platform: "node",
  exception: {
    values: [
      {
        type: "TypeError",
        value,
        stacktrace: { frames: [{ filename: "app.js", function: "handler", lineno: 3, in_app: true }] },
      },
    ],
  },
});

describe("ingestion endpoints (api.md §6.1)", () => {
  // Frozen mid-minute so rate-limit windows and the DSN key cache are deterministic.
  let now = Date.UTC(2026, 10, 22, 10, 33, 15);
  let instance: TestInstance;
  let server: RunningServer;
  let web: { id: string; key: string };
  let other: { id: string; key: string };
  let disabled: { id: string; key: string };
  let limited: { id: string; key: string };

  const db = () => instance.faultline.container.resolve(tokens.Db);
  const envelopeUrl = (projectId: string, query = "") =>
    `${server.url}/api/${projectId}/envelope/?sentry_version=7&sentry_client=test%2F1.0${query}`;
  const withKey = (key: string) => `&sentry_key=${key}`;
  const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", body, headers });
  /** The stored event, once the digest has run over what was acknowledged (queued ingest). */
  const storedEvent = async (eventId: string) => {
    await instance.faultline.worker.runDue("ingest.digest");
    return db()
      .selectFrom("events")
      .select(["event_id", "project_id"])
      .where("event_id", "=", eventId)
      .executeTakeFirst();
  };

  async function createProject(organization: string, slug: string) {
    const project = await instance.faultline.api.projects.create({ organization, slug, platform: "node" });
    return { id: project.id, key: project.keys[0]?.public as string };
  }

  beforeAll(async () => {
    instance = await createTestInstance({
      clock: { now: () => new Date(now) },
      worker: false,
      logger: silentLogger,
      plugins: ingestUnlessBuiltIn,
    });
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme" });
    await api.organizations.create({ slug: "globex" });
    web = await createProject("acme", "web");
    other = await createProject("globex", "shop");
    disabled = await createProject("acme", "retired");
    limited = await createProject("acme", "noisy");
    await db().updateTable("project_keys").set({ is_active: false }).where("public_key", "=", disabled.key).execute();
    await db()
      .updateTable("project_keys")
      .set({ rate_limit_per_minute: 2 })
      .where("public_key", "=", limited.key)
      .execute();
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  describe("authentication by DSN key", () => {
    it("accepts the sentry_key query parameter (@sentry/node 11) and stores the event", async () => {
      const eventId = newEventId();
      const response = await post(
        envelopeUrl(web.id, withKey(web.key)),
        eventEnvelope({ ...errorEvent(), event_id: eventId }),
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
      expect(await storedEvent(eventId)).toEqual({ event_id: eventId, project_id: Number(web.id) });
    });

    it("accepts X-Sentry-Auth and X-Svc-Auth headers", async () => {
      for (const header of ["X-Sentry-Auth", "X-Svc-Auth"]) {
        const eventId = newEventId();
        const auth = {
          [header]: `Sentry sentry_key=${web.key}, sentry_version=7, sentry_client=sentry.javascript.browser/8.0.0`,
        };
        const response = await post(envelopeUrl(web.id), eventEnvelope({ ...errorEvent(), event_id: eventId }), auth);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ id: eventId });
      }
    });

    it("accepts the DSN in the envelope header", async () => {
      const eventId = newEventId();
      const body = eventEnvelope(
        { ...errorEvent(), event_id: eventId },
        { dsn: `http://${web.key}@127.0.0.1/${web.id}` },
      );
      const response = await post(envelopeUrl(web.id), body);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
    });

    it("answers 401 Invalid DSN key for an unknown key, another project's key and a disabled key", async () => {
      const cases = [
        [web.id, "ffffffffffffffffffffffffffffffff"],
        [web.id, other.key],
        [disabled.id, disabled.key],
      ];
      for (const [projectId, key] of cases) {
        const response = await post(
          envelopeUrl(projectId as string, withKey(key as string)),
          eventEnvelope(errorEvent()),
        );
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ detail: "Invalid DSN key" });
      }
    });

    it("answers 401 without any key, including a DSN without one", async () => {
      const response = await post(
        envelopeUrl(web.id),
        eventEnvelope(errorEvent(), { dsn: `http://127.0.0.1/${web.id}` }),
      );
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ detail: "Missing DSN key (sentry_key)" });
    });

    // A numeric project id that does not exist is indistinguishable from "a key of another project"
    // (§6.1 → 401), and answering 404 would tell a caller with no valid key which ids exist.
    it("answers 401 for an unknown numeric project id, 404 for a non-numeric one", async () => {
      const unknown = await post(envelopeUrl("987654", withKey(web.key)), eventEnvelope(errorEvent()));
      expect(unknown.status).toBe(401);
      expect(await unknown.json()).toEqual({ detail: "Invalid DSN key" });
      const slug = await post(`${server.url}/api/web/envelope/?sentry_key=${web.key}`, eventEnvelope(errorEvent()));
      expect(slug.status).toBe(404);
      expect(await slug.json()).toEqual({ detail: "The requested resource does not exist" });
    });

    it("stops honouring a disabled key once its cache entry expires (10 s)", async () => {
      const fleeting = await createProject("acme", "fleeting");
      const send = () => post(envelopeUrl(fleeting.id, withKey(fleeting.key)), eventEnvelope(errorEvent("fleeting")));
      expect((await send()).status).toBe(200);
      await db().updateTable("project_keys").set({ is_active: false }).where("public_key", "=", fleeting.key).execute();
      expect((await send()).status).toBe(200);
      now += 11_000;
      expect((await send()).status).toBe(401);
    });
  });

  describe("bodies", () => {
    it("takes a chunked body without content type", async () => {
      const eventId = newEventId();
      const bytes = new TextEncoder().encode(eventEnvelope({ ...errorEvent(), event_id: eventId }));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 40));
          controller.enqueue(bytes.subarray(40));
          controller.close();
        },
      });
      const response = await fetch(envelopeUrl(web.id, withKey(web.key)), {
        method: "POST",
        body,
        duplex: "half",
      } as RequestInit);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
    });

    it("takes gzip and deflate bodies", async () => {
      for (const [encoding, compress] of [
        ["gzip", gzipSync],
        ["deflate", deflateSync],
      ] as const) {
        const eventId = newEventId();
        const body = compress(eventEnvelope({ ...errorEvent(), event_id: eventId }));
        const response = await post(envelopeUrl(web.id, withKey(web.key)), body, { "Content-Encoding": encoding });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ id: eventId });
      }
    });

    it("answers 200 {} for client_report, sessions and other envelopes without an event", async () => {
      const envelopes = [
        '{"sent_at":"2026-11-22T10:33:29.666Z"}\n{"type":"client_report"}\n{"timestamp":1763807609,"discarded_events":[{"reason":"sample_rate","category":"error","quantity":1}]}',
        '{}\n{"type":"sessions"}\n{"aggregates":[{"started":"2026-11-22T10:33:00Z","exited":1}],"attrs":{"release":"shop@1.0.0"}}\n',
        '{}\n{"type":"session"}\n{"sid":"a","status":"ok"}\n{"type":"transaction"}\n{"type":"transaction"}\n{"type":"attachment","length":3}\nabc',
      ];
      for (const body of envelopes) {
        const response = await post(envelopeUrl(web.id, withKey(web.key)), body);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({});
      }
    });

    it("answers 400 for a malformed envelope or event", async () => {
      const cases = [
        ["not an envelope", /^Malformed envelope: envelope header is not valid JSON/],
        ['{}\n{"type":"event","length":500}\n{}', /^Malformed envelope: item 0 \(event\) declares length 500/],
        ['{}\n{"type":"event"}\n{"exception":', /^Invalid event: malformed JSON/],
      ] as const;
      for (const [body, detail] of cases) {
        const response = await post(envelopeUrl(web.id, withKey(web.key)), body);
        expect(response.status).toBe(400);
        expect((await response.json()).detail).toMatch(detail);
      }
    });

    it("answers 400 for a truncated gzip body", async () => {
      const gzipped = gzipSync(eventEnvelope(errorEvent()));
      const response = await post(envelopeUrl(web.id, withKey(web.key)), gzipped.subarray(0, gzipped.length - 12), {
        "Content-Encoding": "gzip",
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ detail: "Invalid gzip body: unexpected end of file" });
    });

    it("answers 413 for an event over 1 MiB", async () => {
      const response = await post(
        envelopeUrl(web.id, withKey(web.key)),
        eventEnvelope({ message: "x".repeat(MiB + 10) }),
      );
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ detail: "Event too large (limit 1 MiB)" });
    });

    it("answers 413 for a gzip bomb (64 MiB from about 64 KiB)", async () => {
      const member = gzipSync(Buffer.alloc(16 * MiB, "a"));
      const head = gzipSync(`{}\n{"type":"attachment","length":${64 * MiB}}\n`);
      const bomb = Buffer.concat([head, member, member, member, member]);
      expect(bomb.byteLength).toBeLessThan(MiB);
      const response = await post(envelopeUrl(web.id, withKey(web.key)), bomb, { "Content-Encoding": "gzip" });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ detail: "Envelope too large (limit 20 MiB)" });
    });

    it("answers 413 for a request body over 20 MiB as sent, with the CORS headers", async () => {
      const response = await post(envelopeUrl(web.id, withKey(web.key)), Buffer.alloc(20 * MiB + 1, "a"), {
        "Content-Encoding": "gzip",
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ detail: "Request body too large (limit 20 MiB)" });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
    });
  });

  describe("legacy store endpoint", () => {
    it("takes one JSON event (gzip allowed) and answers its id", async () => {
      const eventId = newEventId();
      const body = gzipSync(JSON.stringify({ ...errorEvent("from store"), event_id: eventId }));
      const response = await post(`${server.url}/api/${web.id}/store/`, body, {
        "Content-Type": "application/json",
        "Content-Encoding": "gzip",
        "X-Sentry-Auth": `Sentry sentry_key=${web.key}, sentry_version=7`,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: eventId });
      expect(await storedEvent(eventId)).toBeDefined();
    });

    it("answers 401 for another project's key", async () => {
      const response = await post(
        `${server.url}/api/${web.id}/store/?sentry_key=${other.key}`,
        JSON.stringify(errorEvent()),
      );
      expect(response.status).toBe(401);
    });

    it("answers 413 for an event over 1 MiB and 400 for a body that is not an event", async () => {
      const url = `${server.url}/api/${web.id}/store/?sentry_key=${web.key}`;
      const big = await post(url, JSON.stringify({ message: "z".repeat(MiB) }));
      expect(big.status).toBe(413);
      expect(await big.json()).toEqual({ detail: "Event too large (limit 1 MiB)" });
      const notAnEvent = await post(url, "[]");
      expect(notAnEvent.status).toBe(400);
      expect(await notAnEvent.json()).toEqual({ detail: "Invalid event: expected a JSON object" });
    });
  });

  describe("rate limit", () => {
    it("answers 429 with Retry-After and X-Sentry-Rate-Limits past the key's events per minute; other items pass", async () => {
      const send = (body: string) => post(envelopeUrl(limited.id, withKey(limited.key)), body);
      now = Date.UTC(2026, 10, 22, 10, 40, 15);
      expect((await send(eventEnvelope(errorEvent()))).status).toBe(200);
      expect((await send(eventEnvelope(errorEvent()))).status).toBe(200);
      const refused = await send(eventEnvelope(errorEvent()));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ detail: "Rate limit exceeded; retry after 45 seconds" });
      expect(refused.headers.get("retry-after")).toBe("45");
      expect(refused.headers.get("x-sentry-rate-limits")).toBe("45:error:project:rate_limited");
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      expect((await send('{}\n{"type":"client_report"}\n{}')).status).toBe(200);
      now = Date.UTC(2026, 10, 22, 10, 41, 0);
      expect((await send(eventEnvelope(errorEvent()))).status).toBe(200);
    });

    it("does not limit keys without a limit", async () => {
      for (let i = 0; i < 5; i++)
        expect((await post(envelopeUrl(web.id, withKey(web.key)), eventEnvelope(errorEvent()))).status).toBe(200);
    });
  });

  describe("CORS", () => {
    it("answers the preflight on both paths", async () => {
      for (const path of [`/api/${web.id}/envelope/`, `/api/${web.id}/store/`]) {
        const response = await fetch(`${server.url}${path}`, {
          method: "OPTIONS",
          headers: {
            Origin: "https://app.example.com",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-sentry-auth",
          },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get("access-control-allow-origin")).toBe("*");
        expect(response.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
        const allowed = (response.headers.get("access-control-allow-headers") ?? "").split(/,\s*/);
        expect(allowed).toEqual(
          expect.arrayContaining([
            "content-type",
            "x-sentry-auth",
            "authorization",
            "content-encoding",
            "sentry-trace",
            "baggage",
          ]),
        );
      }
    });

    it("puts the CORS headers on successes and errors", async () => {
      const ok = await post(envelopeUrl(web.id, withKey(web.key)), eventEnvelope(errorEvent()));
      const denied = await post(envelopeUrl(web.id, withKey(other.key)), eventEnvelope(errorEvent()));
      for (const response of [ok, denied]) {
        expect(response.headers.get("access-control-allow-origin")).toBe("*");
        expect(response.headers.get("access-control-expose-headers")).toBe(
          "X-Sentry-Rate-Limits, Retry-After, X-Sentry-Error",
        );
      }
      expect(denied.headers.get("x-sentry-error")).toBe("Invalid DSN key");
    });
  });

  describe("faultline.api.events.capture", () => {
    const events = () => (instance.faultline.api as unknown as ApiOf<[typeof ingestPlugin]>).events;

    it("stores an event for a project named by slugs", async () => {
      const { eventId } = await events().capture({ organization: "acme", project: "web" }, errorEvent("in-process"));
      expect(eventId).toMatch(/^[0-9a-f]{32}$/);
      expect(await storedEvent(eventId)).toEqual({ event_id: eventId, project_id: Number(web.id) });
    });

    it("rejects an unknown project with a 404 ApiError", async () => {
      await expect(events().capture({ organization: "acme", project: "nope" }, errorEvent())).rejects.toMatchObject({
        status: 404,
      });
    });
  });
});
