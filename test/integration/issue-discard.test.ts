import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultlineOptions } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Discard (docs/issues.md, "Discard"): `{"discard": true}` deletes an issue and tombstones its
 * hashes; the SDK's next events of those hashes are answered 200 but refused at accept (never
 * queued or stored), counted in `stats_v2` as `filtered`, `discarded-hash`; removing the
 * tombstone lets them in again, as a new issue. Through the real envelope and store endpoints, in
 * both ways of accepting (docs/ingest.md): inline, and in worker threads (which compute the
 * hashes anyway).
 */
const modes: Array<{ mode: string; ingest: NonNullable<FaultlineOptions["ingest"]> }> = [
  { mode: "inline", ingest: { queued: false } },
  { mode: "worker threads", ingest: { queued: true, isolation: "threads", threads: 1 } },
];

describe.each(modes)("discarding issues ($mode)", { timeout: 60_000 }, ({ ingest }) => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  let writeOnlyToken: string;
  const call = httpCaller(() => server.url);
  const tombstones = "/api/0/projects/acme/web/tombstones/";

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger, ingest });
    seed = await seedOrganization(instance.faultline);
    writeOnlyToken = (await instance.faultline.api.tokens.create({ user: seed.owner.id, scopes: ["event:write"] }))
      .token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  /** Sends an event with this fingerprint over the envelope (or store) endpoint; its id, once digested. */
  async function send(fingerprint: string, endpoint: "envelope" | "store" = "envelope"): Promise<string> {
    const id = randomUUID().replaceAll("-", "");
    const event = { event_id: id, fingerprint: [fingerprint], ...errorEvent({ message: fingerprint }) };
    const body =
      endpoint === "store"
        ? JSON.stringify(event)
        : [{ event_id: id }, { type: "event" }, event].map((line) => JSON.stringify(line)).join("\n");
    const key = seed.project.keys[0]?.public as string;
    const response = await fetch(`${server.url}/api/${seed.project.id}/${endpoint}/?sentry_key=${key}`, {
      method: "POST",
      body,
    });
    // Answered as a filtered event is: 200, `/store/` with the event's id, an envelope with `{id}` only when kept.
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { id?: string };
    if (endpoint === "store" || answer.id !== undefined) expect(answer).toEqual({ id });
    await digestQueued(instance.faultline);
    return id;
  }

  /** The issue id an event was grouped into, or null when it was not stored. */
  async function issueOf(eventId: string): Promise<string | null> {
    const { status, body } = await call("GET", `/api/0/projects/acme/web/events/${eventId}/`, seed.allScopesToken);
    return status === 200 ? (body as { groupID: string }).groupID : null;
  }

  async function filteredCounts() {
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const { body } = await call(
      "GET",
      "/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=reason&statsPeriod=1h",
      seed.orgReadToken,
    );
    const groups = (body as { groups: Array<{ by: Record<string, string>; totals: Record<string, number> }> }).groups;
    return Object.fromEntries(
      groups.map((group) => [`${group.by.outcome}/${group.by.reason}`, group.totals["sum(quantity)"]]),
    );
  }

  it("discards an issue, refuses its hashes' events at accept, and accepts them again once undiscarded", async () => {
    const discarded = (await issueOf(await send("checkout-timeout"))) as string;
    const kept = (await issueOf(await send("cart-empty"))) as string;
    expect(discarded).not.toBeNull();
    expect(kept).not.toBeNull();

    // Discarding deletes: event:admin, as DELETE.
    const refused = await call("PUT", `/api/0/organizations/acme/issues/${discarded}/`, writeOnlyToken, {
      discard: true,
    });
    expect(refused.status).toBe(403);
    const put = await call("PUT", `/api/0/organizations/acme/issues/${discarded}/`, seed.allScopesToken, {
      discard: true,
    });
    expect(put).toMatchObject({ status: 204, body: null });
    expect((await call("GET", `/api/0/organizations/acme/issues/${discarded}/`, seed.allScopesToken)).status).toBe(404);

    const listed = await call("GET", tombstones, seed.allScopesToken);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      {
        id: expect.stringMatching(/^\d+$/),
        level: "error",
        message: "TypeError: x is undefined",
        culprit: expect.any(String),
        type: "error",
        metadata: expect.objectContaining({ type: "TypeError", value: "x is undefined" }),
        actor: { id: String(seed.owner.id), username: "acme-owner", name: "Owner", email: "owner@acme.test" },
        dateAdded: expect.any(String),
      },
    ]);
    const tombstoneId = (listed.body as Array<{ id: string }>)[0]?.id as string;

    // The SDK is answered 200; nothing is stored, over either endpoint; another fingerprint still is.
    expect(await issueOf(await send("checkout-timeout"))).toBeNull();
    expect(await issueOf(await send("checkout-timeout", "store"))).toBeNull();
    expect(await issueOf(await send("cart-empty"))).toBe(kept);
    expect(await filteredCounts()).toMatchObject({ "filtered/discarded-hash": 2, "accepted/": 3 });

    // Removing needs project:admin; then the hash's events form a new issue.
    const readOnly = await call("DELETE", `${tombstones}${tombstoneId}/`, seed.orgReadToken);
    expect(readOnly.status).toBe(403);
    expect((await call("DELETE", `${tombstones}${tombstoneId}/`, seed.allScopesToken)).status).toBe(204);
    expect((await call("DELETE", `${tombstones}${tombstoneId}/`, seed.allScopesToken)).status).toBe(404);
    expect((await call("GET", tombstones, seed.allScopesToken)).body).toEqual([]);
    const again = await issueOf(await send("checkout-timeout"));
    expect(again).not.toBeNull();
    expect(again).not.toBe(discarded);
  });

  it("discards in bulk through the list's PUT, answering 204", async () => {
    const first = (await issueOf(await send("bulk-one"))) as string;
    const second = (await issueOf(await send("bulk-two"))) as string;
    const put = await call("PUT", `/api/0/projects/acme/web/issues/?id=${first}&id=${second}`, seed.allScopesToken, {
      discard: true,
    });
    expect(put).toMatchObject({ status: 204, body: null });
    const listed = (await call("GET", tombstones, seed.allScopesToken)).body as Array<{ message: string }>;
    expect(listed).toHaveLength(2);
    expect(await issueOf(await send("bulk-two", "store"))).toBeNull();
    expect((await call("GET", `/api/0/organizations/acme/issues/${first}/`, seed.allScopesToken)).status).toBe(404);
  });

  it("refuses the events a fingerprint rule groups into a discarded issue (the rule-made hash is what the tombstone holds)", async () => {
    const rules = await call("PUT", "/api/0/projects/acme/web/", seed.allScopesToken, {
      fingerprintingRules: "error.type:DatabaseUnavailable -> database-down",
    });
    expect(rules.status).toBe(200);
    const key = seed.project.keys[0]?.public as string;
    const sendDown = async (value: string) => {
      const id = randomUUID().replaceAll("-", "");
      const event = {
        ...errorEvent({ exception: { values: [{ type: "DatabaseUnavailable", value }] } }),
        event_id: id,
      };
      const response = await fetch(`${server.url}/api/${seed.project.id}/store/?sentry_key=${key}`, {
        method: "POST",
        body: JSON.stringify(event),
      });
      expect(response.status).toBe(200);
      await digestQueued(instance.faultline);
      return id;
    };
    const issue = (await issueOf(await sendDown("primary is gone"))) as string;
    expect(issue).not.toBeNull();
    const before = (await filteredCounts())["filtered/discarded-hash"] ?? 0;
    const discard = await call("PUT", `/api/0/organizations/acme/issues/${issue}/`, seed.allScopesToken, {
      discard: true,
    });
    expect(discard.status).toBe(204);
    // Another value, the same rule: its default hash was never the issue's, its rule-made hash is.
    expect(await issueOf(await sendDown("replica lag 30 s"))).toBeNull();
    expect((await filteredCounts())["filtered/discarded-hash"]).toBe(before + 1);
  });
});
