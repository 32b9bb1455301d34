import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Issue #15: the issue-scoped reads Sentry's tools call — an issue's events (paginated, latest,
 * oldest, recommended), its tags and tag values, short-id and event-id lookups — and the legacy
 * `/api/0/issues/{id}/…` family, over real HTTP.
 */

const T = 1_795_343_609;
const hex = (n: number) => n.toString(16).padStart(32, "0");

describe("issue events, tags, lookups and the legacy /api/0/issues/{id}/ routes", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  let issueId: string;
  let shortId: string;
  /** Seven events of one issue, one per second from T; ids 1…7; even ones in production. */
  const ids = [1, 2, 3, 4, 5, 6, 7].map(hex);

  const get = async (path: string, token = acme.allScopesToken) => {
    const response = await fetch(`${server.url}${path}`, { headers: bearer(token) });
    return { status: response.status, body: await response.json(), link: response.headers.get("link") };
  };
  const send = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...bearer(token), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  const nextCursor = (link: string | null) => /rel="next"; results="true"; cursor="([^"]+)"/.exec(link ?? "")?.[1];
  const issuePath = () => `/api/0/organizations/acme/issues/${issueId}`;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    globex = await seedOrganization(faultline, "globex");
    const capture = captureFor(faultline, { id: acme.project.id, organizationId: acme.organization.id });
    for (const [i, id] of ids.entries()) {
      await capture(
        errorEvent({
          event_id: id,
          timestamp: T + i,
          environment: i % 2 === 1 ? "production" : "staging",
          tags: { shop: i < 5 ? "eu" : "us" },
          user: { id: `u${i % 3}` },
        }),
        new Date((T + 20) * 1000),
      );
    }
    // Globex has an issue too: its id must never open through acme's paths, and the other way round.
    await captureFor(faultline, { id: globex.project.id, organizationId: globex.organization.id })(
      errorEvent({ event_id: hex(0xf1), timestamp: T }),
    );
    server = await serveFaultline(faultline);
    const list = await get("/api/0/organizations/acme/issues/?query=");
    ({ id: issueId, shortId } = (list.body as Array<{ id: string; shortId: string }>)[0] as {
      id: string;
      shortId: string;
    });
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("lists an issue's events newest first, paginated with cursor links, and oldest first on request", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(`${issuePath()}/events/?per_page=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.map((event: { eventID: string }) => event.eventID));
      cursor = nextCursor(page.link);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const oldest: string[] = [];
    cursor = undefined;
    do {
      const page = await get(`${issuePath()}/events/?per_page=2&sort=timestamp${cursor ? `&cursor=${cursor}` : ""}`);
      oldest.push(...page.body.map((event: { eventID: string }) => event.eventID));
      cursor = nextCursor(page.link);
    } while (cursor);
    expect(oldest).toEqual(ids);

    const first = await get(`${issuePath()}/events/?per_page=1`);
    expect(first.body[0]).toMatchObject({
      id: ids[6],
      "event.type": "error",
      groupID: issueId,
      projectID: String(acme.project.id),
      title: "TypeError: x is undefined",
      user: { id: "u0" },
      platform: "node",
      dateCreated: new Date((T + 6) * 1000).toISOString(),
      crashFile: null,
      metadata: { type: "TypeError", value: "x is undefined" },
    });
    expect(first.body[0].tags).toContainEqual({ key: "shop", value: "us" });
  });

  it("filters by environment, time window and key:value tag terms; full=1 gives detailed events; bad input is a 400", async () => {
    const production = await get(`${issuePath()}/events/?environment=production`);
    expect(production.body.map((event: { eventID: string }) => event.eventID)).toEqual([ids[5], ids[3], ids[1]]);
    const window = await get(
      `${issuePath()}/events/?start=${new Date((T + 2) * 1000).toISOString()}&end=${new Date((T + 4) * 1000).toISOString()}`,
    );
    expect(window.body.map((event: { eventID: string }) => event.eventID)).toEqual([ids[3], ids[2]]);
    const tagged = await get(`${issuePath()}/events/?query=${encodeURIComponent('shop:us environment:"staging"')}`);
    expect(tagged.body.map((event: { eventID: string }) => event.eventID)).toEqual([ids[6]]);
    expect(
      (await get(`${issuePath()}/events/?query=${encodeURIComponent('"X IS undefined" shop:us')}`)).body,
    ).toHaveLength(2);
    expect((await get(`${issuePath()}/events/?query=nowhere`)).body).toEqual([]);
    expect((await get(`${issuePath()}/events/?query=${encodeURIComponent("100%")}`)).body).toEqual([]);
    const full = await get(`${issuePath()}/events/?full=1&per_page=1`);
    expect(full.body[0]).toMatchObject({
      eventID: ids[6],
      entries: [{ type: "exception" }],
      dateReceived: expect.any(String),
    });

    for (const query of [
      "sort=size",
      "query=a%20OR%20b",
      "query=!shop:eu",
      "start=2026-01-01T00:00:00Z",
      "cursor=nonsense",
      "full=maybe",
    ]) {
      const answer = await get(`${issuePath()}/events/?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.detail, query).toBeTruthy();
    }
  });

  it("retrieves latest, oldest, recommended and a named event of the issue, with neighbours", async () => {
    expect((await get(`${issuePath()}/events/latest/`)).body).toMatchObject({
      eventID: ids[6],
      previousEventID: ids[5],
      nextEventID: null,
      groupID: issueId,
    });
    expect((await get(`${issuePath()}/events/oldest/`)).body).toMatchObject({
      eventID: ids[0],
      previousEventID: null,
      nextEventID: ids[1],
    });
    expect((await get(`${issuePath()}/events/recommended/`)).body).toMatchObject({ eventID: ids[6] });
    expect((await get(`${issuePath()}/events/latest/?environment=staging`)).body.eventID).toBe(ids[6]);
    expect((await get(`${issuePath()}/events/latest/?environment=production`)).body.eventID).toBe(ids[5]);
    expect((await get(`${issuePath()}/events/${ids[2]}/`)).body).toMatchObject({
      eventID: ids[2],
      occurrence: null,
      sdkUpdates: [],
      resolvedWith: [],
    });
    // Another issue's event, a malformed id, an environment without events: not found.
    expect((await get(`${issuePath()}/events/${hex(0xf1)}/`)).status).toBe(404);
    expect((await get(`${issuePath()}/events/newest/`)).status).toBe(404);
    expect((await get(`${issuePath()}/events/latest/?environment=qa`)).status).toBe(404);
  });

  it("counts tag keys and values of the issue's events", async () => {
    const tags = (await get(`${issuePath()}/tags/`)).body as Array<{
      key: string;
      totalValues: number;
      uniqueValues: number;
      topValues: Array<{ value: string; count: number }>;
    }>;
    const shop = tags.find((tag) => tag.key === "shop");
    expect(shop).toMatchObject({ key: "shop", name: "shop", totalValues: 7, uniqueValues: 2 });
    expect(shop?.topValues.map(({ value, count }) => ({ value, count }))).toEqual([
      { value: "eu", count: 5 },
      { value: "us", count: 2 },
    ]);
    expect(tags.find((tag) => tag.key === "level")).toMatchObject({ name: "Level", totalValues: 7, uniqueValues: 1 });

    const environment = await get(`${issuePath()}/tags/environment/`);
    expect(environment.body).toMatchObject({
      key: "environment",
      name: "Environment",
      totalValues: 7,
      uniqueValues: 2,
      topValues: [
        { value: "staging", count: 4 },
        { value: "production", count: 3 },
      ],
    });
    expect((await get(`${issuePath()}/tags/shop/?environment=production`)).body.topValues).toEqual([
      {
        key: "shop",
        name: "eu",
        value: "eu",
        count: 2,
        firstSeen: new Date((T + 1) * 1000).toISOString(),
        lastSeen: new Date((T + 3) * 1000).toISOString(),
      },
      {
        key: "shop",
        name: "us",
        value: "us",
        count: 1,
        firstSeen: new Date((T + 5) * 1000).toISOString(),
        lastSeen: new Date((T + 5) * 1000).toISOString(),
      },
    ]);

    const first = await get(`${issuePath()}/tags/shop/values/?per_page=1`);
    expect(first.body).toMatchObject([{ value: "eu", count: 5 }]);
    const second = await get(`${issuePath()}/tags/shop/values/?per_page=1&cursor=${nextCursor(first.link)}`);
    expect(second.body).toMatchObject([{ value: "us", count: 2 }]);
    expect(nextCursor(second.link)).toBeUndefined();
    expect(
      (await get(`${issuePath()}/tags/shop/values/?sort=-date`)).body.map((value: { value: string }) => value.value),
    ).toEqual(["us", "eu"]);
    expect((await get(`${issuePath()}/tags/nothing/`)).status).toBe(404);
    expect((await get(`${issuePath()}/tags/nothing/values/`)).status).toBe(404);
    expect((await get(`${issuePath()}/tags/shop/values/?sort=weight`)).status).toBe(400);
  });

  it("resolves a short id and an event id within the organization only", async () => {
    const resolved = await get(`/api/0/organizations/acme/shortids/${shortId}/`);
    expect(resolved.body).toMatchObject({
      organizationSlug: "acme",
      projectSlug: "web",
      groupId: issueId,
      shortId,
      group: { id: issueId, shortId },
    });
    expect((await get(`/api/0/organizations/acme/shortids/${shortId.toLowerCase()}/`)).body.groupId).toBe(issueId);
    expect((await get(`/api/0/organizations/acme/shortids/${issueId}/`)).status).toBe(404);
    // Globex's first issue has the same short id: the lookup answers globex's own issue, never acme's.
    const own = await get(`/api/0/organizations/globex/shortids/${shortId}/`, globex.allScopesToken);
    expect(own.body).toMatchObject({ organizationSlug: "globex", shortId });
    expect(own.body.groupId).not.toBe(issueId);
    expect((await get(`/api/0/organizations/globex/shortids/WEB-2/`, globex.allScopesToken)).status).toBe(404);

    const event = await get(`/api/0/organizations/acme/eventids/${ids[3]}/`);
    expect(event.body).toMatchObject({
      organizationSlug: "acme",
      projectSlug: "web",
      groupId: issueId,
      eventId: ids[3],
      event: { eventID: ids[3], groupID: issueId },
    });
    expect((await get(`/api/0/organizations/globex/eventids/${ids[3]}/`, globex.allScopesToken)).status).toBe(404);
    expect((await get(`/api/0/organizations/acme/eventids/${hex(0xf1)}/`)).status).toBe(404);
    expect((await get(`/api/0/organizations/acme/eventids/not-an-id/`)).status).toBe(404);
  });

  it("serves the legacy /api/0/issues/{id}/ family in the issue's own organization", async () => {
    const legacy = `/api/0/issues/${issueId}`;
    const detail = await get(`${legacy}/`);
    expect(detail.body).toMatchObject({ id: issueId, shortId, project: { slug: "web" } });
    expect(detail.body.permalink).toBe(`${server.url}/api/0/organizations/acme/issues/${issueId}/`);
    expect((await get(`${legacy}/events/?per_page=2`)).body.map((event: { eventID: string }) => event.eventID)).toEqual(
      [ids[6], ids[5]],
    );
    expect((await get(`${legacy}/events/latest/`)).body.eventID).toBe(ids[6]);
    expect((await get(`${legacy}/events/oldest/`)).body.eventID).toBe(ids[0]);
    expect((await get(`${legacy}/tags/shop/values/`)).body).toHaveLength(2);
    expect((await get(`${legacy}/hashes/`)).status).toBe(200);
    const updated = await send("PUT", `${legacy}/`, acme.allScopesToken, { status: "resolved" });
    expect(updated.status).toBe(200);
    expect(JSON.parse(updated.text)).toMatchObject({ id: issueId, status: "resolved" });
    expect((await send("PUT", `${legacy}/`, acme.allScopesToken, { status: "nonsense" })).status).toBe(400);
    // Short ids are not resolved on the legacy path (a project slug may repeat across organizations).
    expect((await get(`/api/0/issues/${shortId}/`)).status).toBe(404);
  });

  it("never opens another organization's issue through the legacy path, and limits by the caller's role there", async () => {
    const globexIssue = (
      (await get("/api/0/organizations/globex/issues/?query=", globex.allScopesToken)).body as Array<{ id: string }>
    )[0]?.id as string;
    const answers = [];
    for (const path of ["/", "/events/", "/events/latest/", "/tags/", "/tags/level/values/"]) {
      for (const token of [
        globex.allScopesToken,
        (await instance.faultline.api.tokens.create({ organization: "globex", scopes: [...SCOPES] })).token,
      ]) {
        const foreign = await get(`/api/0/issues/${issueId}${path}`, token);
        const absent = await get(`/api/0/issues/987654321${path}`, token);
        answers.push({
          path,
          foreign: foreign.status,
          same: JSON.stringify(foreign.body) === JSON.stringify(absent.body),
        });
        expect((await get(`/api/0/issues/${globexIssue}${path}`, token)).status, path).toBe(200);
      }
    }
    expect(
      answers.every((answer) => answer.foreign === 404 && answer.same),
      JSON.stringify(answers),
    ).toBe(true);
    expect((await send("DELETE", `/api/0/issues/${issueId}/`, globex.allScopesToken)).status).toBe(404);
    expect((await send("PUT", `/api/0/issues/${issueId}/`, globex.allScopesToken, { status: "ignored" })).status).toBe(
      404,
    );

    // Globex's owner joins acme as billing: acme's issue is found, and the role (no event scopes) refuses it.
    await instance.faultline.api.members.add({ organization: "acme", user: globex.owner.id, role: "billing" });
    expect((await get(`/api/0/issues/${issueId}/`, globex.allScopesToken)).status).toBe(403);
    expect((await get(`/api/0/organizations/acme/issues/${issueId}/`, globex.allScopesToken)).status).toBe(403);
    // An acme token with event:read only cannot delete through the legacy path either.
    expect((await send("DELETE", `/api/0/issues/${issueId}/`, acme.eventReadToken)).status).toBe(403);
    expect((await send("DELETE", `/api/0/issues/${issueId}/`, acme.allScopesToken)).status).toBe(202);
    expect((await get(`/api/0/issues/${issueId}/`)).status).toBe(404);
  });
});
