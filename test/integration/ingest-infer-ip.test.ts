import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";

/**
 * Issue #15: `{{auto}}` as the user's `ip_address` (and `sdk.settings.infer_ip: "auto"`) is the
 * address the event came from, resolved at accept time over real HTTP: the socket's peer, and
 * `X-Forwarded-For` only when the host trusts its proxy (the node adapter's `trustProxy`).
 */
describe("ingest: {{auto}} user IPs become the sender's address", () => {
  let instance: TestInstance;
  /** The node adapter as a host mounts it without a proxy: X-Forwarded-For is the client's own claim. */
  let direct: RunningServer;
  /** The same behind the host's own proxy (`trustProxy: true`). */
  let proxied: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let dsnKey: string;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    acme = await seedOrganization(instance.faultline, "acme");
    dsnKey = acme.project.keys[0]?.public as string;
    direct = await listen(createServer(toNodeHandler(instance.faultline)));
    proxied = await listen(createServer(toNodeHandler(instance.faultline, { trustProxy: true })));
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    await instance?.close();
  });

  /** Sends one event as an SDK does (an envelope over HTTP) and reads back the stored user. */
  async function send(
    server: RunningServer,
    event: Record<string, unknown>,
    headers: Record<string, string> = {},
    via: "envelope" | "store" = "envelope",
  ) {
    const eventId = randomUUID().replaceAll("-", "");
    const body = { ...errorEvent(), ...event, event_id: eventId };
    const payload =
      via === "envelope"
        ? [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(body)].join("\n")
        : JSON.stringify(body);
    const response = await fetch(`${server.url}/api/${acme.project.id}/${via}/?sentry_key=${dsnKey}`, {
      method: "POST",
      headers,
      body: payload,
    });
    expect(response.status).toBe(200);
    await instance.faultline.worker.runDue("ingest.digest");
    const stored = await fetch(`${server.url}/api/0/projects/acme/web/events/${eventId}/`, {
      headers: bearer(acme.allScopesToken),
    });
    const json = (await stored.json()) as { user: { ip_address: string | null; id: string | null } | null };
    const raw = (await (
      await fetch(`${server.url}/api/0/projects/acme/web/events/${eventId}/json/`, {
        headers: bearer(acme.allScopesToken),
      })
    ).json()) as { user?: Record<string, unknown> };
    return { user: json.user, raw: raw.user };
  }

  it("replaces {{auto}} with the socket's peer, ignoring an untrusted X-Forwarded-For", async () => {
    const { user, raw } = await send(
      direct,
      { user: { id: "42", ip_address: "{{auto}}" } },
      { "X-Forwarded-For": "203.0.113.9" },
    );
    expect(user).toMatchObject({ id: "42", ip_address: "127.0.0.1" });
    expect(raw).toEqual({ id: "42", ip_address: "127.0.0.1" });
    expect((await send(direct, { user: { ip_address: "{{ AUTO }}" } }, {}, "store")).user?.ip_address).toBe(
      "127.0.0.1",
    );
  });

  it("takes the client from X-Forwarded-For behind a trusted proxy", async () => {
    const { user } = await send(
      proxied,
      { user: { id: "7", ip_address: "{{auto}}" } },
      { "X-Forwarded-For": "203.0.113.9, 10.0.0.2" },
    );
    expect(user).toMatchObject({ id: "7", ip_address: "203.0.113.9" });
    // No header: the peer itself.
    expect((await send(proxied, { user: { ip_address: "{{auto}}" } })).user?.ip_address).toBe("127.0.0.1");
  });

  it("follows sdk.settings.infer_ip: auto fills a missing address, never drops {{auto}}, a stated address stays", async () => {
    expect(
      (
        await send(direct, {
          user: { id: "1" },
          sdk: { name: "sentry.javascript.browser", version: "10.0.0", settings: { infer_ip: "auto" } },
        })
      ).user?.ip_address,
    ).toBe("127.0.0.1");
    expect(
      (
        await send(direct, {
          sdk: { name: "sentry.javascript.browser", version: "10.0.0", settings: { infer_ip: "auto" } },
        })
      ).user?.ip_address,
    ).toBe("127.0.0.1");
    const never = await send(direct, {
      user: { id: "2", ip_address: "{{auto}}" },
      sdk: { name: "sentry.python", version: "2.0.0", settings: { infer_ip: "never" } },
    });
    expect(never.raw).toEqual({ id: "2" });
    expect(
      (
        await send(direct, {
          user: { id: "3", ip_address: "198.51.100.1" },
          sdk: { name: "x", version: "1", settings: { infer_ip: "auto" } },
        })
      ).user?.ip_address,
    ).toBe("198.51.100.1");
    // Without infer_ip a node event without an address gets none (Relay's legacy mode infers only for browsers and Apple platforms).
    expect((await send(direct, { user: { id: "4" } })).user?.ip_address ?? null).toBeNull();
    expect((await send(direct, { platform: "javascript", user: { id: "5" } })).user?.ip_address).toBe("127.0.0.1");
  });

  it("drops {{auto}} when the sender's address is unknown (the handler called without one)", async () => {
    const eventId = randomUUID().replaceAll("-", "");
    const envelope = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({ ...errorEvent(), event_id: eventId, user: { id: "9", ip_address: "{{auto}}" } }),
    ].join("\n");
    const response = await instance.faultline.handler(
      new Request(`http://x/api/${acme.project.id}/envelope/?sentry_key=${dsnKey}`, { method: "POST", body: envelope }),
    );
    expect(response.status).toBe(200);
    await instance.faultline.worker.runDue("ingest.digest");
    const raw = (await (
      await fetch(`${direct.url}/api/0/projects/acme/web/events/${eventId}/json/`, {
        headers: bearer(acme.allScopesToken),
      })
    ).json()) as { user?: unknown };
    expect(raw.user).toEqual({ id: "9" });
  });
});
