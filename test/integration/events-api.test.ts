import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Db } from "../../src/container/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/** A real @sentry/node 11 event (the third line of the reference envelope). */
const nodeEvent = JSON.parse(readFileSync(new URL("../fixtures/node-event.json", import.meta.url), "utf8")) as Record<
  string,
  unknown
>;

/** Event time of the fixture, whole seconds (events below are spaced from it). */
const T = 1_795_343_609;
const hex = (n: number) => n.toString(16).padStart(32, "0");
const dashed = (id: string) =>
  `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;

describe("events API: retrieve, raw JSON, hashes, external issues", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  /** Four node events of one issue: seconds T, T+1, T+2 and T+2 again (the tie goes by arrival). */
  const nodeIds = [hex(0xa1), hex(0xa2), hex(0xa3), hex(0xa4)];
  const rich = {
    event_id: hex(0xb1),
    timestamp: T + 5,
    platform: "node",
    level: "warning",
    logentry: { message: "User %s not found", params: ["42"] },
    request: {
      url: "https://shop.test/cart?item=1&item=2#top",
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: ["a", "b"] },
      data: { qty: 2 },
    },
    breadcrumbs: { values: [{ timestamp: "2026-11-22T10:33:29.000Z", category: "ui.click", message: "clicked buy" }] },
    user: { id: 42, email: "ann@shop.test", ip_address: "{{auto}}" },
    tags: [["shop", "eu"]],
  };
  let capture: ReturnType<typeof captureFor>;
  let nodeIssueId: string;
  let richIssueId: string;
  const get = (path: string, token = acme.allScopesToken) => fetch(`${server.url}${path}`, { headers: bearer(token) });
  const eventPath = (id: string, org = "acme", project = "web") => `/api/0/projects/${org}/${project}/events/${id}/`;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    globex = await seedOrganization(faultline, "globex");
    await faultline.api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    capture = captureFor(faultline, { id: acme.project.id, organizationId: acme.organization.id });
    const seconds = [T, T + 1, T + 2, T + 2];
    for (const [i, id] of nodeIds.entries()) {
      await capture({ ...nodeEvent, event_id: id, timestamp: seconds[i] }, new Date((T + 10) * 1000));
    }
    await capture(rich, new Date((T + 10) * 1000));
    // An event of another issue in between must not count as a neighbour.
    await capture(
      { ...nodeEvent, event_id: hex(0xc1), timestamp: T + 1, fingerprint: ["elsewhere"] },
      new Date((T + 10) * 1000),
    );
    server = await serveFaultline(faultline);
    nodeIssueId = (await (await get(eventPath(nodeIds[0] as string))).json()).groupID;
    richIssueId = (await (await get(eventPath(rich.event_id))).json()).groupID;
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("retrieves a real SDK event: columns, tags, user, contexts, sdk, metadata and exception frames", async () => {
    const response = await get(eventPath(nodeIds[1] as string));
    expect(response.status).toBe(200);
    const event = await response.json();
    expect(event).toMatchObject({
      id: nodeIds[1],
      eventID: nodeIds[1],
      groupID: nodeIssueId,
      projectID: String(acme.project.id),
      title: "Error: probe failure",
      culprit: "?(server)",
      location: "/srv/app/server.mjs",
      level: "error",
      platform: "node",
      type: "error",
      dateCreated: new Date((T + 1) * 1000).toISOString(),
      dateReceived: new Date((T + 10) * 1000).toISOString(),
      environment: "test",
      release: { version: "shop@1.0.0" },
      dist: null,
      user: { id: "u1", email: null, username: null, ip_address: null, name: null },
      sdk: { name: "sentry.javascript.node", version: "11.12.0" },
      metadata: { type: "Error", value: "probe failure", filename: "/srv/app/server.mjs", function: "?" },
      fingerprints: [expect.stringMatching(/^[0-9a-f]{32}$/)],
    });
    expect(event.size).toBeGreaterThan(1000);
    expect(event.contexts).toEqual(nodeEvent.contexts);
    expect(event.tags).toEqual(
      expect.arrayContaining([
        { key: "probe", value: "yes" },
        { key: "level", value: "error" },
        { key: "environment", value: "test" },
        { key: "release", value: "shop@1.0.0" },
      ]),
    );
    expect(event.entries.map((entry: { type: string }) => entry.type)).toEqual(["exception", "breadcrumbs"]);

    const [exception] = event.entries[0].data.values;
    expect(exception).toMatchObject({
      type: "Error",
      value: "probe failure",
      module: null,
      mechanism: { type: "generic", handled: true },
    });
    const [library, app] = exception.stacktrace.frames;
    expect(library).toEqual({
      filename: "node:internal/process/task_queues",
      absPath: null,
      module: "task_queues",
      function: "process.processTicksAndRejections",
      lineNo: 95,
      colNo: 5,
      inApp: false,
      context: [],
      // Sentry's native fields: none in a Node event.
      package: null,
      platform: null,
      instructionAddr: null,
      symbolAddr: null,
      symbol: null,
      trust: null,
      vars: null,
      errors: null,
    });
    expect(app).toMatchObject({ filename: "/srv/app/server.mjs", lineNo: 27, colNo: 36, inApp: true });
    expect(app.context).toHaveLength(11);
    expect(app.context[0]).toEqual([22, expect.stringContaining("an app server")]);
    expect(app.context[5]).toEqual([27, expect.stringContaining("new Error('probe failure')")]);
    expect(app.context[10]).toEqual([32, "app.close(); ingest.close();"]);

    const crumbs = event.entries[1].data.values;
    expect(crumbs).toHaveLength(2);
    expect(crumbs[1]).toEqual({
      type: "http",
      category: "http",
      level: "error",
      message: null,
      data: { status_code: 500, url: "http://127.0.0.1:39505/boom", "http.request.method": "GET" },
      timestamp: new Date(1795343609.652 * 1000).toISOString(),
      event_id: null,
    });
    expect(crumbs[0].level).toBe("info");
  });

  it("carries the event's release as the releases API shows it (dates, deploys, projects)", async () => {
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const releasePath = `/api/0/organizations/acme/releases/${encodeURIComponent("shop@1.0.0")}/`;
    expect((await send("PUT", releasePath, { ref: "abc123", url: "https://shop.test/r/1" })).status).toBe(200);
    expect((await send("POST", `${releasePath}deploys/`, { environment: "production" })).status).toBe(201);
    const release = await (await get(releasePath)).json();
    expect(release).toMatchObject({
      version: "shop@1.0.0",
      shortVersion: "1.0.0",
      ref: "abc123",
      url: "https://shop.test/r/1",
      deployCount: 1,
      lastDeploy: { environment: "production" },
      commitCount: 0,
      authors: [],
      owner: null,
      dateReleased: null,
      projects: [expect.objectContaining({ slug: "web" })],
    });
    expect(release.dateCreated).toMatch(/Z$/);
    expect(release.firstEvent).toMatch(/Z$/);
    expect(release.lastEvent).toMatch(/Z$/);
    expect(release.newGroups).toBe(2); // the node issue and the "elsewhere" one
    const event = await (await get(eventPath(nodeIds[0] as string))).json();
    expect(event.release).toEqual(release);
    // The issue's event reads show the same object.
    const latest = await (await get(`/api/0/organizations/acme/issues/${nodeIssueId}/events/latest/`)).json();
    expect(latest.release).toEqual(release);
    const [full] = await (
      await get(`/api/0/organizations/acme/issues/${nodeIssueId}/events/?full=1&per_page=1`)
    ).json();
    expect(full.release).toEqual(release);
  });

  it("shows request, message and breadcrumb entries of a message event with its own metadata and user", async () => {
    const event = await (await get(eventPath(rich.event_id))).json();
    expect(event).toMatchObject({
      groupID: richIssueId,
      type: "default",
      level: "warning",
      title: "User 42 not found",
      metadata: { title: "User 42 not found" },
      user: { id: "42", email: "ann@shop.test", ip_address: null },
      release: null,
      environment: null,
      contexts: {},
      sdk: {},
      nextEventID: null,
      previousEventID: null,
    });
    expect(event.tags).toContainEqual({ key: "shop", value: "eu" });
    expect(event.entries).toEqual([
      {
        type: "breadcrumbs",
        data: {
          values: [
            {
              type: "default",
              category: "ui.click",
              level: "info",
              message: "clicked buy",
              data: null,
              timestamp: "2026-11-22T10:33:29.000Z",
              event_id: null,
            },
          ],
        },
      },
      {
        type: "request",
        data: {
          url: "https://shop.test/cart",
          method: "POST",
          query: [
            ["item", "1"],
            ["item", "2"],
          ],
          headers: [
            ["Accept", "a"],
            ["Accept", "b"],
            ["Content-Type", "application/json"],
          ],
          data: { qty: 2 },
          fragment: null,
          cookies: null,
          inferredContentType: null,
          env: null,
        },
      },
      { type: "message", data: { formatted: "User 42 not found", message: "User %s not found", params: ["42"] } },
    ]);
  });

  it("keeps the order of pair lists, and shows odd but accepted payloads without failing", async () => {
    const listed = hex(0xb2);
    await capture(
      {
        event_id: listed,
        message: "listed",
        request: {
          url: "https://shop.test/p",
          query_string: [
            ["b", "2"],
            ["a", "1"],
          ],
          headers: [
            ["X-B", "2"],
            ["X-A", 1],
          ],
        },
      },
      new Date((T + 10) * 1000),
    );
    const request = (await (await get(eventPath(listed))).json()).entries.find(
      (entry: { type: string }) => entry.type === "request",
    );
    expect(request.data).toMatchObject({
      query: [
        ["b", "2"],
        ["a", "1"],
      ],
      headers: [
        ["X-B", "2"],
        ["X-A", "1"],
      ],
    });

    const odd = hex(0xb3);
    const frames = [{ filename: "a.js", lineno: "7", context_line: "x()", in_app: "yes" }];
    await capture(
      {
        event_id: odd,
        exception: [{ type: "E", stacktrace: { frames } }],
        breadcrumbs: "none",
        request: "GET /",
        sdk: "node",
      },
      new Date((T + 10) * 1000),
    );
    const response = await get(eventPath(odd));
    expect(response.status).toBe(200);
    const event = await response.json();
    expect(event.sdk).toEqual({});
    expect(event.entries).toEqual([
      {
        type: "exception",
        data: {
          values: [
            {
              type: "E",
              value: null,
              module: null,
              mechanism: null,
              stacktrace: {
                frames: [
                  {
                    filename: "a.js",
                    absPath: null,
                    module: null,
                    function: null,
                    lineNo: null,
                    colNo: null,
                    inApp: false,
                    context: [],
                    package: null,
                    platform: null,
                    instructionAddr: null,
                    symbolAddr: null,
                    symbol: null,
                    trust: null,
                    vars: null,
                    errors: null,
                  },
                ],
                framesOmitted: null,
                registers: null,
                hasSystemFrames: true,
              },
              rawStacktrace: null,
              threadId: null,
            },
          ],
          excOmitted: null,
          hasSystemFrames: true,
        },
      },
    ]);
  });

  it("accepts dashed and uppercase event ids and links neighbours within the issue by (time, arrival)", async () => {
    const [a, b, c, d] = nodeIds as [string, string, string, string];
    const byDashed = await get(eventPath(dashed(b).toUpperCase()));
    expect(byDashed.status).toBe(200);
    expect((await byDashed.json()).id).toBe(b);
    const neighbours = async (id: string) => {
      const event = await (await get(eventPath(id))).json();
      return [event.previousEventID, event.nextEventID];
    };
    expect(await neighbours(a)).toEqual([null, b]);
    expect(await neighbours(b)).toEqual([a, c]);
    expect(await neighbours(c)).toEqual([b, d]);
    expect(await neighbours(d)).toEqual([c, null]);
  });

  it("lists the project's events newest first, page by page with Link cursors (Sentry's project event list)", async () => {
    const listPath = (org = "acme", project = "web") => `/api/0/projects/${org}/${project}/events/`;
    const db = instance.faultline.container.resolve(Db);
    const stored = await db
      .selectFrom("events")
      .select("event_id")
      .where("project_id", "=", Number(acme.project.id))
      .orderBy("timestamp", "desc")
      .orderBy("id", "desc")
      .execute();
    const seen: string[] = [];
    let url: string | undefined = `${server.url}${listPath()}?per_page=2`;
    while (url) {
      const response: Response = await fetch(url, { headers: bearer(acme.eventReadToken) });
      expect(response.status).toBe(200);
      const page = (await response.json()) as Array<{ eventID: string }>;
      seen.push(...page.map((item) => item.eventID));
      url = /<([^>]+)>; rel="next"; results="true"/.exec(response.headers.get("link") ?? "")?.[1];
    }
    expect(seen).toEqual(stored.map((row) => row.event_id));
    const [item] = await (await get(`${listPath()}?per_page=1`)).json();
    const [newest] = await (await get(`/api/0/organizations/acme/issues/${item.groupID}/events/?per_page=1`)).json();
    expect(item).toEqual(newest);
    // full=1: detailed events; filters as the issue's event list.
    const [full] = await (await get(`${listPath()}?per_page=1&full=1`)).json();
    expect(full).toMatchObject({ eventID: item.eventID, "event.type": item["event.type"], crashFile: null });
    expect(Array.isArray(full.entries)).toBe(true);
    const shop = await (await get(`${listPath()}?query=${encodeURIComponent("shop:eu")}`)).json();
    expect(shop.map((event: { eventID: string }) => event.eventID)).toEqual([rich.event_id]);
    expect((await get(`${listPath()}?query=${encodeURIComponent("!shop:eu")}`)).status).toBe(400);
    expect(await (await get(listPath("acme", "api"))).json()).toEqual([]);
    expect((await get(listPath("acme", "web"), acme.orgReadToken)).status).toBe(403);
    expect((await get(listPath("acme", "web"), globex.allScopesToken)).status).toBe(404);
  });

  it("serves the raw event exactly as it was sent", async () => {
    const response = await get(`${eventPath(dashed(nodeIds[0] as string))}json/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...nodeEvent, event_id: nodeIds[0], timestamp: T });
    expect(await (await get(`${eventPath(rich.event_id)}json/`)).json()).toEqual(rich);
  });

  it("answers 404 for unknown, malformed and misplaced events, and 403 without event:read", async () => {
    const notFound = [
      [eventPath(hex(0xdead)), acme.allScopesToken, "Event not found"],
      [eventPath("not-an-event-id"), acme.allScopesToken, "Event not found"],
      [eventPath(`${nodeIds[0]}0`), acme.allScopesToken, "Event not found"],
      [eventPath(nodeIds[0] as string, "acme", "api"), acme.allScopesToken, "Event not found"],
      [`${eventPath(nodeIds[0] as string, "acme", "api")}json/`, acme.allScopesToken, "Event not found"],
      [eventPath(nodeIds[0] as string, "acme", "nope"), acme.allScopesToken, "The requested resource does not exist"],
      [eventPath(nodeIds[0] as string, "globex", "web"), globex.allScopesToken, "Event not found"],
      [eventPath(nodeIds[0] as string), globex.allScopesToken, "The requested resource does not exist"],
    ] as const;
    for (const [path, token, detail] of notFound) {
      const response = await get(path, token);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toEqual({ detail });
    }
    const forbidden = await get(eventPath(nodeIds[0] as string), acme.orgReadToken);
    expect(forbidden.status).toBe(403);
    expect((await get(eventPath(nodeIds[0] as string), acme.eventReadToken)).status).toBe(200);
  });

  it("hides the events of a deleted issue", async () => {
    const id = hex(0xe1);
    await capture({ ...nodeEvent, event_id: id, timestamp: T, fingerprint: ["doomed"] }, new Date((T + 10) * 1000));
    const { groupID } = await (await get(eventPath(id))).json();
    const deleted = await fetch(`${server.url}/api/0/organizations/acme/issues/${groupID}/`, {
      method: "DELETE",
      headers: bearer(acme.allScopesToken),
    });
    expect(deleted.status).toBe(202);
    expect((await get(eventPath(id))).status).toBe(404);
    expect((await get(`/api/0/organizations/acme/issues/${groupID}/hashes/`)).status).toBe(404);
  });

  describe("hashes", () => {
    const hashesPath = (issue: string, org = "acme") => `/api/0/organizations/${org}/issues/${issue}/hashes/`;

    it("lists the issue's hash with its latest event in full", async () => {
      const response = await get(hashesPath(nodeIssueId), acme.eventReadToken);
      expect(response.status).toBe(200);
      const [hash, ...rest] = await response.json();
      expect(rest).toEqual([]);
      const event = await (await get(eventPath(nodeIds[3] as string))).json();
      // The latest event in full, exactly as the event detail endpoint shows it, and what produced
      // the hash: no fingerprint rule (docs/grouping.md).
      expect(hash).toEqual({
        id: event.fingerprints[0],
        latestEvent: event,
        groupingInfo: { type: "default", description: "default grouping", matchedRule: null, values: null },
      });
      expect(event.entries.length).toBeGreaterThan(0);
      expect(response.headers.get("link")).toMatch(/rel="previous"; results="false".*rel="next"; results="false"/);
    });

    it("orders several hashes by their latest event and walks them page by page", async () => {
      // A merged issue has several hashes: give the rich event's issue two more, one of them
      // carried by an older event and one whose events are all gone.
      const db = instance.faultline.container.resolve(Db);
      const older = hex(0xf1);
      await capture({ ...rich, event_id: older, timestamp: T }, new Date((T + 10) * 1000));
      const [merged, orphan] = ["1".repeat(32), "2".repeat(32)];
      await db
        .updateTable("events")
        .set({ hashes: [merged] })
        .where("event_id", "=", older)
        .execute();
      await db
        .insertInto("issue_hashes")
        .values(
          [merged, orphan].map((hash) => ({
            project_id: Number(acme.project.id),
            hash,
            issue_id: Number(richIssueId),
          })),
        )
        .execute();
      const primary = (await (await get(eventPath(rich.event_id))).json()).fingerprints[0];

      const seen: Array<[string, string | null]> = [];
      let url: string | undefined = `${server.url}${hashesPath(richIssueId)}?per_page=1`;
      while (url) {
        const response: Response = await fetch(url, { headers: bearer(acme.allScopesToken) });
        expect(response.headers.get("x-per-page")).toBe("1");
        const page = await response.json();
        expect(page).toHaveLength(1);
        seen.push([page[0].id, page[0].latestEvent?.eventID ?? null]);
        url = /<([^>]+)>; rel="next"; results="true"/.exec(response.headers.get("link") ?? "")?.[1];
      }
      expect(seen).toEqual([
        [primary, rich.event_id],
        [merged, older],
        [orphan, null],
      ]);
    });

    it("accepts a short id; 404 for another organization's issue; 400 for a bad page size or cursor", async () => {
      const issue = await (await get(`/api/0/organizations/acme/issues/${nodeIssueId}/`)).json();
      expect((await get(hashesPath(issue.shortId))).status).toBe(200);
      expect((await get(hashesPath(nodeIssueId), globex.allScopesToken)).status).toBe(404);
      expect((await get(hashesPath(nodeIssueId, "globex"), globex.allScopesToken)).status).toBe(404);
      expect((await get(hashesPath("999999"))).status).toBe(404);
      expect((await get(`${hashesPath(nodeIssueId)}?per_page=0`)).status).toBe(400);
      expect((await get(`${hashesPath(nodeIssueId)}?cursor=nonsense`)).status).toBe(400);
    });
  });

  describe("external issues of one issue", () => {
    const linksPath = (issue: string, org = "acme") => `/api/0/organizations/${org}/issues/${issue}/external-issues/`;

    it("lists the links of every installation in the link shape", async () => {
      const { api, container } = instance.faultline;
      await api.apps.create({
        organization: "acme",
        name: "Tracker",
        slug: "tracker",
        isInternal: true,
        scopes: ["event:write"],
      });
      await api.apps.create({ organization: "globex", name: "Jira Sync", slug: "jira-sync", scopes: ["event:write"] });
      await api.installations.install({ organization: "acme", app: "jira-sync" });
      const db = container.resolve(Db);
      const installations = await db
        .selectFrom("app_installations as i")
        .innerJoin("apps as a", "a.id", "i.app_id")
        .select(["i.id", "a.slug"])
        .where("i.organization_id", "=", Number(acme.organization.id))
        .execute();
      const installationOf = (slug: string) => installations.find((row) => row.slug === slug)?.id as number;
      const link = (slug: string, issueId: string, identifier: string) => ({
        organization_id: Number(acme.organization.id),
        installation_id: installationOf(slug),
        issue_id: Number(issueId),
        web_url: `https://${slug}.test/${identifier}`,
        identifier,
        date_created: new Date(),
      });
      await db
        .insertInto("external_issues")
        .values([
          link("tracker", nodeIssueId, "T-1"),
          link("jira-sync", nodeIssueId, "OPS-7"),
          link("tracker", richIssueId, "T-2"),
        ])
        .execute();

      const response = await get(linksPath(nodeIssueId), acme.eventReadToken);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([
        {
          id: expect.any(String),
          issueId: nodeIssueId,
          webUrl: "https://tracker.test/T-1",
          project: "web",
          identifier: "T-1",
          serviceType: "tracker",
          displayName: "web#T-1",
        },
        {
          id: expect.any(String),
          issueId: nodeIssueId,
          webUrl: "https://jira-sync.test/OPS-7",
          project: "web",
          identifier: "OPS-7",
          serviceType: "jira-sync",
          displayName: "web#OPS-7",
        },
      ]);
    });

    it("is empty for an issue without links and 404 across organizations", async () => {
      const other = hex(0xd1);
      await capture(
        { ...nodeEvent, event_id: other, timestamp: T, fingerprint: ["unlinked"] },
        new Date((T + 10) * 1000),
      );
      const { groupID } = await (await get(eventPath(other))).json();
      expect(await (await get(linksPath(groupID))).json()).toEqual([]);
      expect((await get(linksPath(nodeIssueId), globex.allScopesToken)).status).toBe(404);
      expect((await get(linksPath(nodeIssueId, "globex"), globex.allScopesToken)).status).toBe(404);
      expect((await get(linksPath(nodeIssueId), acme.orgReadToken)).status).toBe(403);
    });
  });
});
