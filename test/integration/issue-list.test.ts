import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, tokens } from "../../src/index.js";
import { issueCondition } from "../../src/plugins/issues/list/filters.js";
import { pageQuery } from "../../src/plugins/issues/list/queries.js";
import type { ListParams } from "../../src/plugins/issues/list/params.js";
import { IssueListQuery } from "../../src/plugins/issues/list/service.js";
import { ISSUE_SORTS, type IssueSort } from "../../src/plugins/issues/list/sorts.js";
import { formatCursor } from "../../src/http/pagination.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";

const HOUR = 3_600_000;

interface ListItem {
  id: string;
  shortId: string;
  title: string;
  firstSeen: string;
  lastSeen: string;
  count: string;
  userCount: number;
  status: string;
  stats?: Record<string, Array<[number, number]>>;
}

/** The `<url>` of a relation in a `Link` header, when that page has results. */
const linkOf = (response: Response, rel: string) =>
  new RegExp(`<([^>]+)>; rel="${rel}"; results="true"`).exec(response.headers.get("link") ?? "")?.[1];
/** Fixture issues are titled `TypeError: <name>`. */
const nameOf = (item: ListItem) => item.title.replace(/^TypeError: /, "");

describe("issue list", () => {
  let now = new Date("2026-03-01T01:00:00.000Z");
  const tick = (ms: number) => (now = new Date(now.getTime() + ms));
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;
  let readToken: string;
  let orgToken: string;
  let globexToken: string;
  const ids: Record<string, string> = {};
  const eventIds: Record<string, string> = {};
  const projects: Record<string, string> = {};
  let bobId: string;
  let acmeId: string;
  let foreignIssueId: string;
  let foreignEventId: string;

  const db = () => instance.faultline.container.resolve(tokens.Db);
  const api = () => instance.faultline.api;
  const issueOfEvent = async (eventId: string) =>
    String(
      (await db().selectFrom("events").select("issue_id").where("event_id", "=", eventId).executeTakeFirstOrThrow())
        .issue_id,
    );
  const get = (path: string, auth = token) => fetch(`${server.url}${path}`, { headers: bearer(auth) });
  const list = async (params: string, auth = token) => {
    const response = await get(`/api/0/organizations/acme/issues/?${params}`, auth);
    expect(response.status, `${params}: ${response.status}`).toBe(200);
    return (await response.json()) as ListItem[];
  };
  const names = async (params: string) => (await list(params)).map(nameOf);
  const q = (query: string) => `query=${encodeURIComponent(query)}`;
  const put = (path: string, body: unknown, auth = token) =>
    fetch(`${server.url}${path}`, {
      method: "PUT",
      headers: { ...bearer(auth), "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    instance = await createTestInstance({ clock: { now: () => now }, worker: false, logger: silentLogger });
    const { api } = instance.faultline;
    const acme = await api.organizations.create({ slug: "acme" });
    acmeId = acme.id;
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test", name: "Ada" });
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    const bob = await api.users.create({ username: "bob", email: "bob@acme.test" });
    bobId = bob.id;
    await api.members.add({ organization: "acme", user: bob.id, role: "member" });
    await api.teams.create({ organization: "acme", slug: "backend", name: "Backend" });
    await api.teams.addMember({ organization: "acme", team: "backend", user: ada.id });
    const web = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    const apiProject = await api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    projects.web = web.id;
    projects.api = apiProject.id;
    token = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    readToken = (await api.tokens.create({ user: ada.id, scopes: ["event:read"] })).token;
    orgToken = (await api.tokens.create({ organization: "acme", scopes: ["event:admin"] })).token;

    const globex = await api.organizations.create({ slug: "globex" });
    const gus = await api.users.create({ username: "gus" });
    await api.members.add({ organization: "globex", user: gus.id, role: "owner" });
    const shop = await api.projects.create({ organization: "globex", slug: "shop" });
    projects.shop = shop.id;
    globexToken = (await api.tokens.create({ user: gus.id, scopes: [...SCOPES] })).token;
    foreignEventId = (
      await captureFor(instance.faultline, { id: shop.id, organizationId: globex.id })(
        errorEvent({ fingerprint: ["foreign"] }),
      )
    ).eventId;
    foreignIssueId = await issueOfEvent(foreignEventId);

    server = await serveFaultline(instance.faultline);
    const capture = {
      web: captureFor(instance.faultline, { id: web.id, organizationId: acme.id }),
      api: captureFor(instance.faultline, { id: apiProject.id, organizationId: acme.id }),
    };
    /** A new issue named `name` (its own fingerprint and exception value), one hour after the previous one. */
    const issue = async (
      name: string,
      project: "web" | "api",
      extra: Record<string, unknown> = {},
      frames?: Array<Record<string, unknown>>,
    ) => {
      tick(HOUR);
      const event = (overrides: Record<string, unknown> = {}) =>
        errorEvent(
          {
            fingerprint: [name],
            exception: {
              values: [
                {
                  type: "TypeError",
                  value: name,
                  stacktrace: {
                    frames: frames ?? [{ filename: "app.js", function: "handler", lineno: 3, in_app: true }],
                  },
                },
              ],
            },
            ...extra,
            ...overrides,
          },
          frames,
        );
      const { eventId } = await capture[project](event());
      eventIds[name] = eventId;
      ids[name] = await issueOfEvent(eventId);
      return {
        more: async (overrides: Record<string, unknown> = {}) => (tick(60_000), capture[project](event(overrides))),
      };
    };
    const issuePath = (name: string) => `/api/0/organizations/acme/issues/${ids[name]}/`;
    const update = async (name: string, body: unknown) => expect((await put(issuePath(name), body)).status).toBe(200);

    const alpha = await issue("alpha", "web", {
      environment: "prod",
      release: "1.0.0",
      tags: { browser: "Firefox" },
      user: { id: "1" },
    });
    await alpha.more({ user: { id: "2" } });
    await alpha.more({ user: { id: "3" } });
    await issue("beta", "web", {
      environment: "staging",
      level: "warning",
      tags: { browser: "Chrome" },
      user: { id: "1" },
    });
    const gamma = await issue("gamma", "api", { environment: "prod", release: "2.0.0", level: "fatal" });
    await gamma.more();
    await update("gamma", { status: "resolved" });
    await issue("delta", "api", { environment: "dev" });
    await update("delta", { status: "ignored" });
    await issue("epsilon", "web", { environment: "prod" });
    await update("epsilon", { assignedTo: "bob", isBookmarked: true, isSubscribed: true });
    await issue("zeta", "web");
    await update("zeta", { assignedTo: "#backend" });
    await issue("eta", "web");
    await api.apps.create({
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      isInternal: true,
      scopes: ["event:write"],
    });
    const installation = await db()
      .selectFrom("app_installations")
      .select("id")
      .where("organization_id", "=", Number(acme.id))
      .executeTakeFirstOrThrow();
    await db()
      .insertInto("external_issues")
      .values({
        organization_id: Number(acme.id),
        installation_id: installation.id,
        issue_id: Number(ids.eta),
        web_url: "https://tracker.test/1",
        identifier: "TRK-1",
        date_created: now,
      })
      .execute();
    await issue("theta", "web", {}, [{ filename: "app.js", function: "checkoutFlow", lineno: 9, in_app: true }]);
    const iota = await issue("iota", "web");
    await update("iota", { status: "resolved" });
    await iota.more();
    await issue("kappa", "web");
    await update("kappa", { status: "ignored" });
    await update("kappa", { status: "unresolved" });
    // Seen again last: lastSeen order (sort=date) now differs from firstSeen order (sort=new).
    tick(HOUR);
    await alpha.more({ user: { id: "4" } });
  }, 240_000); // About forty captures and updates: generous on a busy machine.
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  describe("filters", () => {
    it("defaults to is:unresolved, most recently seen first, in the list item shape", async () => {
      const items = await list("");
      expect(items.map(nameOf)).toEqual(["alpha", "kappa", "iota", "theta", "eta", "zeta", "epsilon", "beta"]);
      expect(items[0]).toMatchObject({
        id: ids.alpha,
        shortId: "WEB-1",
        status: "unresolved",
        count: "4",
        userCount: 4,
        project: { id: projects.web, slug: "web" },
        assignedTo: null,
      });
      expect(items.find((i) => nameOf(i) === "epsilon")).toMatchObject({
        assignedTo: "bob",
        isBookmarked: true,
        isSubscribed: true,
      });
      expect(items[0]?.stats?.["24h"]).toHaveLength(24);
    });

    it("treats query= as no filter, and ANDs status with the query (the default applies only without both)", async () => {
      expect(await names("query=")).toEqual([
        "alpha",
        "kappa",
        "iota",
        "theta",
        "eta",
        "zeta",
        "epsilon",
        "delta",
        "gamma",
        "beta",
      ]);
      expect(await names("status=resolved")).toEqual(["gamma"]);
      expect(await names("status=ignored")).toEqual(["delta"]);
      expect(await names(`${q("is:unresolved")}&status=resolved`)).toEqual([]);
      expect(await names(`${q("level:fatal")}&status=resolved`)).toEqual(["gamma"]);
    });

    it("filters by every is: value", async () => {
      expect(await names(q("is:resolved"))).toEqual(["gamma"]);
      expect(await names(q("is:archived"))).toEqual(["delta"]);
      expect(await names(q("is:ignored"))).toEqual(["delta"]);
      expect(await names(q("is:assigned"))).toEqual(["zeta", "epsilon"]);
      expect(await names(q("is:unassigned is:unresolved"))).toEqual(["alpha", "kappa", "iota", "theta", "eta", "beta"]);
      expect(await names(q("is:linked"))).toEqual(["eta"]);
      expect(await names(q("is:unlinked is:unresolved"))).toEqual([
        "alpha",
        "kappa",
        "iota",
        "theta",
        "zeta",
        "epsilon",
        "beta",
      ]);
      expect(await names(q("is:new"))).toEqual(["alpha", "theta", "eta", "zeta", "epsilon", "beta"]);
      expect(await names(q("is:regressed"))).toEqual(["iota"]);
      expect(await names(q("is:ongoing"))).toEqual(["kappa"]);
      expect(await names(q("is:escalating"))).toEqual([]);
    });

    it("filters by assignee: me, none, my_teams, username, email, id, #team, team name, lists", async () => {
      expect(await names(q("assigned:me"))).toEqual([]);
      expect(await names(q("assigned:bob"))).toEqual(["epsilon"]);
      expect(await names(q("assigned:BOB@acme.test"))).toEqual(["epsilon"]);
      expect(await names(q(`assigned:${bobId}`))).toEqual(["epsilon"]);
      expect(await names(q("assigned:#backend"))).toEqual(["zeta"]);
      expect(await names(q('assigned:"Backend"'))).toEqual(["zeta"]);
      expect(await names(q("assigned:my_teams"))).toEqual(["zeta"]);
      expect(await names(q("assigned:[bob, #backend]"))).toEqual(["zeta", "epsilon"]);
      expect(await names(q("assigned:none is:unresolved"))).toEqual(["alpha", "kappa", "iota", "theta", "eta", "beta"]);
      expect(await names(q("assigned:nobody-by-that-name"))).toEqual([]);
      expect(await names("assignee=bob")).toEqual(["epsilon"]);
      expect(await names(`assignee=${encodeURIComponent("#backend")}`)).toEqual(["zeta"]);
      expect(await names(`assignee=${bobId}`)).toEqual(["epsilon"]);
    });

    it("filters by the caller's bookmarks and subscriptions; `me` needs a user token", async () => {
      expect(await names(q("bookmarks:me"))).toEqual(["epsilon"]);
      // Explicitly (epsilon), and by resolving (gamma, iota): whoever resolves an issue follows it.
      expect(await names(q("subscribed:me"))).toEqual(["iota", "epsilon", "gamma"]);
      expect(await names(q("!bookmarks:me is:assigned"))).toEqual(["zeta"]);
      const response = await get(`/api/0/organizations/acme/issues/?${q("bookmarks:me")}`, orgToken);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        detail: 'Error parsing search query: "bookmarks:me" needs a user token',
        errors: { query: ['"bookmarks:me" needs a user token'] },
      });
    });

    it("filters by level, environment, release and tags (on any event of the issue)", async () => {
      expect(await names(q("level:warning"))).toEqual(["beta"]);
      expect(await names(q("level:[warning, fatal]"))).toEqual(["gamma", "beta"]);
      expect(await names(q("environment:prod"))).toEqual(["alpha", "epsilon", "gamma"]);
      expect(await names(q("release:1.0.0"))).toEqual(["alpha"]);
      expect(await names(q("release:2.0.0"))).toEqual(["gamma"]);
      expect(await names(q("has:browser"))).toEqual(["alpha", "beta"]);
      expect(await names(q("browser:Firefox"))).toEqual(["alpha"]);
      expect(await names(q("browser:[Firefox, Chrome]"))).toEqual(["alpha", "beta"]);
      expect(await names(q("!browser:Firefox is:unresolved"))).toEqual([
        "kappa",
        "iota",
        "theta",
        "eta",
        "zeta",
        "epsilon",
        "beta",
      ]);
      expect(await names(q("tags[environment]:staging"))).toEqual(["beta"]);
    });

    it("filters by firstSeen / lastSeen durations and ISO dates", async () => {
      const all = await list("query=");
      const since = (field: "firstSeen" | "lastSeen", ms: number) =>
        all.filter((i) => Date.parse(i[field]) >= now.getTime() - ms).map(nameOf);
      const recent = await names(q("firstSeen:-3h"));
      expect(recent).toEqual(since("firstSeen", 3 * HOUR));
      expect(recent.length).toBeGreaterThan(0);
      expect(recent.length).toBeLessThan(all.length);
      expect(await names(q("firstSeen:+3h"))).toEqual(all.map(nameOf).filter((name) => !recent.includes(name)));
      expect(await names(q("lastSeen:-90m"))).toEqual(since("lastSeen", 90 * 60_000));
      expect(await names(q("age:-1w"))).toEqual(all.map(nameOf));
      const epsilon = all.find((i) => nameOf(i) === "epsilon") as ListItem;
      expect(await names(q(`lastSeen:>${epsilon.lastSeen} is:unresolved`))).toEqual([
        "alpha",
        "kappa",
        "iota",
        "theta",
        "eta",
        "zeta",
      ]);
      expect(await names(q(`firstSeen:<=${epsilon.firstSeen}`))).toEqual([
        "alpha",
        "epsilon",
        "delta",
        "gamma",
        "beta",
      ]);
      expect(await names(q("firstSeen:2026-03-01"))).toEqual(all.map(nameOf));
      expect(await names(q("firstSeen:2026-03-02"))).toEqual([]);
      expect(await names(q("lastSeen:>=2026-03-02T00:00:00Z"))).toEqual([]);
    });

    it("filters by timesSeen and userCount with each comparison", async () => {
      expect(await names(q("timesSeen:>1"))).toEqual(["alpha", "iota", "gamma"]);
      expect(await names(q("timesSeen:4"))).toEqual(["alpha"]);
      expect(await names(q("timesSeen:>=2 timesSeen:<4"))).toEqual(["iota", "gamma"]);
      expect(await names(q("timesSeen:<=1 is:unresolved"))).toEqual([
        "kappa",
        "theta",
        "eta",
        "zeta",
        "epsilon",
        "beta",
      ]);
      expect(await names(q("userCount:>=2"))).toEqual(["alpha"]);
      expect(await names(q("userCount:1"))).toEqual(["beta"]);
    });

    it("matches each bare word and quoted phrase in the title, culprit or message, case-insensitively", async () => {
      expect(await names(q("checkout"))).toEqual(["theta"]);
      expect(await names(q('"typeerror: ALPHA"'))).toEqual(["alpha"]);
      expect(await names(q("TypeError: alph"))).toEqual(["alpha"]);
      expect(await names(q("alpha beta"))).toEqual([]);
      expect(await names(q("handler is:resolved"))).toEqual(["gamma"]);
      expect(await names(q("100%"))).toEqual([]);
    });

    it("negates filters null-safely", async () => {
      expect(await names(q("!is:unresolved"))).toEqual(["delta", "gamma"]);
      // gamma's substatus is null once resolved: `!is:new` must still include it.
      expect(await names(q("!is:new"))).toEqual(["kappa", "iota", "delta", "gamma"]);
      expect(await names(q("!assigned:bob is:assigned"))).toEqual(["zeta"]);
      expect(await names(q("!environment:[prod, staging] is:unresolved"))).toEqual([
        "kappa",
        "iota",
        "theta",
        "eta",
        "zeta",
      ]);
    });

    it("limits to repeatable project and environment parameters", async () => {
      expect(await names(`query=&project=${projects.api}`)).toEqual(["delta", "gamma"]);
      expect(await names(`query=&project=${projects.api}&project=${projects.web}`)).toHaveLength(10);
      expect(await names("query=&project=-1")).toHaveLength(10);
      expect(await names("query=&environment=staging&environment=dev")).toEqual(["delta", "beta"]);
      expect(await names("environment=prod")).toEqual(["alpha", "epsilon"]);
    });

    it("combines query, status, assignee, project and environment with AND", async () => {
      const base = `${q("level:error")}&status=unresolved&assignee=bob&project=${projects.web}&environment=prod`;
      expect(await names(base)).toEqual(["epsilon"]);
      expect(await names(base.replace("environment=prod", "environment=staging"))).toEqual([]);
      expect(await names(base.replace(`project=${projects.web}`, `project=${projects.api}`))).toEqual([]);
      expect(await names(base.replace("status=unresolved", "status=resolved"))).toEqual([]);
    });

    it("answers 400 for unknown or foreign project ids, naming them, and for a bad project value", async () => {
      for (const project of ["999999", projects.shop as string]) {
        const response = await get(`/api/0/organizations/acme/issues/?project=${projects.web}&project=${project}`);
        expect(response.status).toBe(400);
        const body = await response.json();
        expect(body.detail).toBe(`Invalid request: project: Unknown project "${project}" in this organization`);
        expect(body.errors).toEqual({ project: [`Unknown project "${project}" in this organization`] });
      }
      expect((await get("/api/0/organizations/acme/issues/?project=web")).status).toBe(400);
    });

    it("answers 400 with the reason for a query that does not parse", async () => {
      for (const [query, why] of [
        ["is:bogus", 'unknown value "bogus" for "is:"'],
        ["firstSeen:-3y", 'invalid duration "-3y" for "firstSeen:" (units: m, h, d, w)'],
        ['browser:"unterminated', "missing closing quote"],
      ]) {
        const response = await get(`/api/0/organizations/acme/issues/?${q(query as string)}`);
        expect(response.status).toBe(400);
        expect((await response.json()).detail).toContain(`Error parsing search query: ${why}`);
      }
    });
  });

  describe("sorts, stats and pagination", () => {
    it("answers the default list (compiled once) exactly as the general path answers the same filter", async () => {
      // No query (or exactly `is:unresolved`), first page: list/default-page.ts. `query=&status=unresolved`
      // selects the same issues through the general path, whose statement is built per request.
      const raw = async (params: string, auth: string) => {
        const response = await get(`/api/0/organizations/acme/issues/?${params}`, auth);
        expect(response.status, params).toBe(200);
        return { hits: response.headers.get("x-hits"), body: await response.json() };
      };
      for (const auth of [token, orgToken]) {
        for (const sort of ISSUE_SORTS) {
          for (const extra of [
            "",
            "&statsPeriod=24h",
            "&statsPeriod=14d&limit=2",
            "&groupStatsPeriod=",
            "&statsPeriod=1h",
          ]) {
            const general = await raw(`query=&status=unresolved&sort=${sort}${extra}`, auth);
            expect(general.body.length, `${sort}${extra}`).toBeGreaterThan(0);
            expect(await raw(`sort=${sort}${extra}`, auth), `${sort}${extra}`).toEqual(general);
            expect(await raw(`${q("is:unresolved")}&sort=${sort}${extra}`, auth), `${sort}${extra}`).toEqual(general);
          }
        }
      }
      // List rows read their timestamps as text (list/columns.ts); the detail formats Dates.
      for (const item of await list("query=")) {
        const detail = (await (await get(`/api/0/organizations/acme/issues/${item.id}/`)).json()) as ListItem;
        expect([item.firstSeen, item.lastSeen]).toEqual([detail.firstSeen, detail.lastSeen]);
      }
    });

    it("answers an empty default list with X-Hits: 0", async () => {
      // A one-second window ten seconds after the last event: nothing in it.
      tick(10_000);
      const response = await get(`/api/0/organizations/acme/issues/?statsPeriod=1s`);
      tick(-10_000);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-hits")).toBe("0");
      expect(await response.json()).toEqual([]);
    });

    it("sorts by date, new, freq and user, descending, ties broken by id", async () => {
      const byKey = (items: ListItem[], key: (i: ListItem) => number) =>
        [...items].sort((a, b) => key(b) - key(a) || Number(b.id) - Number(a.id)).map(nameOf);
      const date = await list("query=&sort=date");
      expect(date.map(nameOf)).toEqual(byKey(date, (i) => Date.parse(i.lastSeen)));
      const newest = await list("query=&sort=new");
      expect(newest.map(nameOf)).toEqual([
        "kappa",
        "iota",
        "theta",
        "eta",
        "zeta",
        "epsilon",
        "delta",
        "gamma",
        "beta",
        "alpha",
      ]);
      const freq = await list("query=&sort=freq");
      expect(freq.map(nameOf)).toEqual(byKey(freq, (i) => Number(i.count)));
      expect(freq.slice(0, 3).map(nameOf)).toEqual(["alpha", "iota", "gamma"]);
      const user = await list("query=&sort=user");
      expect(user.map(nameOf)).toEqual(byKey(user, (i) => i.userCount));
      expect(user.slice(0, 2).map(nameOf)).toEqual(["alpha", "beta"]);
      expect((await get("/api/0/organizations/acme/issues/?sort=priority")).status).toBe(400);
    });

    it("selects the stats timeline with statsPeriod or groupStatsPeriod, or none", async () => {
      expect(Object.keys((await list("statsPeriod=14d"))[0]?.stats ?? {})).toEqual(["14d"]);
      expect((await list("statsPeriod=14d"))[0]?.stats?.["14d"]).toHaveLength(14);
      expect(Object.keys((await list("groupStatsPeriod=14d"))[0]?.stats ?? {})).toEqual(["14d"]);
      expect((await list("statsPeriod="))[0]).not.toHaveProperty("stats");
      const alphaHour = (await list(""))[0]?.stats?.["24h"]?.at(-1);
      expect(alphaHour).toEqual([Math.floor(now.getTime() / HOUR) * 3600, 1]);
      // `auto` without a window draws Sentry's default range, the last 24 hours, hourly (the list
      // stays unwindowed); with a 14-day window, daily points.
      const auto = await list("groupStatsPeriod=auto");
      const hourly = auto[0]?.stats?.auto ?? [];
      expect(Object.keys(auto[0]?.stats ?? {})).toEqual(["auto"]);
      expect(hourly).toHaveLength(25);
      expect(hourly.at(-1)).toEqual(alphaHour);
      expect(hourly.every(([t], i) => i === 0 || t - (hourly[i - 1]?.[0] ?? 0) === 3600)).toBe(true);
      expect(auto.map(nameOf)).toEqual((await list("")).map(nameOf));
      const daily = (await list("statsPeriod=14d&groupStatsPeriod=auto"))[0]?.stats?.auto ?? [];
      expect(daily).toHaveLength(15);
      expect(daily.every(([t], i) => i === 0 || t - (daily[i - 1]?.[0] ?? 0) === 86_400)).toBe(true);
      for (const [bad, message] of [
        ["groupStatsPeriod=1h", /^Invalid request: groupStatsPeriod: must be "24h", "14d", "auto" or empty$/],
        ["statsPeriod=7x", /^Invalid request: statsPeriod: must be a number followed by s, m, h, d or w/],
        ["start=2026-03-01T00:00:00Z", /^Invalid request: end: start and end must be given together$/],
        ["start=2026-03-02T00:00:00Z&end=2026-03-01T00:00:00Z", /^Invalid request: end: must be after start$/],
        ["start=yesterday&end=2026-03-01T00:00:00Z", /^Invalid request: start: must be an ISO 8601 timestamp$/],
      ] as const) {
        const response = await get(`/api/0/organizations/acme/issues/?${bad}`);
        expect(response.status, bad).toBe(400);
        expect((await response.json()).detail, bad).toMatch(message);
      }
    });

    it("statsPeriod and start/end (Sentry) limit the list to issues with events in the window, counted in it", async () => {
      // now is 12:05; alpha was seen at 02:00–02:02 and 12:05, kappa at 11:04, iota at 10:03–10:04.
      expect(await names("query=&statsPeriod=1h")).toEqual(["alpha"]);
      const [alpha] = await list("query=&statsPeriod=1h");
      expect(alpha).toMatchObject({
        count: "1",
        lifetime: { count: "4", userCount: 4 },
        stats: { "24h": expect.any(Array) },
      });
      expect(await names("query=&statsPeriod=3h")).toEqual(["alpha", "kappa", "iota"]);
      for (const period of ["30d", "7d", "1w", "14d"])
        expect((await list(`query=&statsPeriod=${period}`)).length, period).toBe(10);
      expect(await names("query=&statsPeriod=90m")).toEqual(["alpha", "kappa"]);
      expect(await names("query=&statsPeriod=3600s")).toEqual(["alpha"]);
      // A closed window: only what had events inside it (to the hour at its edges).
      const closed = await list(`query=&start=2026-03-01T03:00:00Z&end=2026-03-01T04:30:00Z&groupStatsPeriod=auto`);
      expect(closed.map(nameOf)).toEqual(["gamma", "beta"]);
      const gamma = closed[0] as ListItem & { stats: Record<string, Array<[number, number]>> };
      expect(gamma.count).toBe("2");
      expect(gamma.stats.auto).toEqual([
        [Date.parse("2026-03-01T03:00:00Z") / 1000, 0],
        [Date.parse("2026-03-01T04:00:00Z") / 1000, 2],
      ]);
      // statsPeriod overrides start/end, as in Sentry.
      expect(await names("query=&statsPeriod=1h&start=2026-03-01T03:00:00Z&end=2026-03-01T04:30:00Z")).toEqual([
        "alpha",
      ]);
      // Without a window, counts are the lifetime's (the seed's behaviour).
      expect((await list("query=&statsPeriod="))[0]).toMatchObject({ count: "4" });
      const auto = (await list("query=&statsPeriod=3h&groupStatsPeriod=auto"))[0] as ListItem & {
        stats: Record<string, unknown[]>;
      };
      expect(Object.keys(auto.stats)).toEqual(["auto"]);
      expect(auto.stats.auto).toHaveLength(4);
    });

    it("sends Link, X-Hits and X-Max-Hits, and walks next and previous pages", async () => {
      const first = await get(`/api/0/organizations/acme/issues/?${q("is:unresolved")}&limit=3`);
      expect(first.headers.get("x-hits")).toBe("8");
      expect(first.headers.get("x-max-hits")).toBe("1000");
      expect(first.headers.get("x-per-page")).toBe("3");
      const link = first.headers.get("link") ?? "";
      expect(link).toMatch(
        /^<http:\/\/127\.0\.0\.1:\d+\/api\/0\/organizations\/acme\/issues\/\?query=is%3Aunresolved&limit=3&cursor=\d+%3A\d+%3A1>; rel="previous"; results="false"; cursor="\d+:\d+:1", <http:\/\/127\.0\.0\.1:\d+\/api\/0\/organizations\/acme\/issues\/\?query=is%3Aunresolved&limit=3&cursor=\d+%3A\d+%3A0>; rel="next"; results="true"; cursor="\d+:\d+:0"$/,
      );
      const pages: string[][] = [((await first.json()) as ListItem[]).map(nameOf)];
      let response = first;
      for (let url = linkOf(first, "next"); url; url = linkOf(response, "next")) {
        response = await fetch(url, { headers: bearer(token) });
        expect(response.headers.get("x-hits")).toBe("8");
        pages.push(((await response.json()) as ListItem[]).map(nameOf));
      }
      expect(pages).toEqual([
        ["alpha", "kappa", "iota"],
        ["theta", "eta", "zeta"],
        ["epsilon", "beta"],
      ]);
      expect(response.headers.get("link")).toMatch(/rel="next"; results="false"/);
      const back = await fetch(linkOf(response, "previous") as string, { headers: bearer(token) });
      expect(((await back.json()) as ListItem[]).map(nameOf)).toEqual(["theta", "eta", "zeta"]);
    });

    it("pages by counters too (sort=freq cursors hold the count)", async () => {
      const all = (await list("query=&sort=freq")).map(nameOf);
      const walked: string[] = [];
      let url: string | undefined = `${server.url}/api/0/organizations/acme/issues/?query=&sort=freq&limit=4`;
      while (url) {
        const response: Response = await fetch(url, { headers: bearer(token) });
        walked.push(...((await response.json()) as ListItem[]).map(nameOf));
        url = linkOf(response, "next");
        if (url) expect(decodeURIComponent(url)).toMatch(/cursor=\d{1,2}:\d+:0$/);
      }
      expect(walked).toEqual(all);
    });

    it("clamps limit over 100 and answers 400 for a bad limit or cursor", async () => {
      const clamped = await get("/api/0/organizations/acme/issues/?limit=500");
      expect(clamped.headers.get("x-per-page")).toBe("100");
      for (const bad of ["limit=0", "limit=-1", "limit=ten"])
        expect((await get(`/api/0/organizations/acme/issues/?${bad}`)).status).toBe(400);
      const cursor = await get("/api/0/organizations/acme/issues/?cursor=garbage");
      expect(cursor.status).toBe(400);
      expect(await cursor.json()).toEqual({ detail: "Invalid cursor parameter." });
    });
  });

  describe("direct hits", () => {
    it("returns the issue of a 32-hex event id (dashed too) with X-Svc-Direct-Hit", async () => {
      for (const query of [
        eventIds.iota as string,
        (eventIds.iota as string).replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-").toUpperCase(),
      ]) {
        const response = await get(`/api/0/organizations/acme/issues/?${q(query)}`);
        expect(response.headers.get("x-svc-direct-hit")).toBe("1");
        expect(response.headers.get("x-hits")).toBe("1");
        expect(((await response.json()) as ListItem[]).map(nameOf)).toEqual(["iota"]);
      }
      // A resolved issue is a direct hit too: the event id names it, whatever its status.
      expect((await list(q(eventIds.gamma as string))).map(nameOf)).toEqual(["gamma"]);
    });

    it("returns the issue of a short id with shortIdLookup=1 only", async () => {
      const hit = await get(`/api/0/organizations/acme/issues/?query=web-1&shortIdLookup=1`);
      expect(hit.headers.get("x-svc-direct-hit")).toBe("1");
      expect(((await hit.json()) as ListItem[]).map(nameOf)).toEqual(["alpha"]);
      const plain = await get(`/api/0/organizations/acme/issues/?query=WEB-1`);
      expect(plain.headers.get("x-svc-direct-hit")).toBeNull();
      expect(await plain.json()).toEqual([]);
    });

    it("never hits another organization's issue, by event id or short id", async () => {
      const byEvent = await get(`/api/0/organizations/acme/issues/?${q(foreignEventId)}`);
      expect(byEvent.headers.get("x-svc-direct-hit")).toBeNull();
      expect(await byEvent.json()).toEqual([]);
      const byShortId = await get(`/api/0/organizations/acme/issues/?query=SHOP-1&shortIdLookup=1`);
      expect(byShortId.headers.get("x-svc-direct-hit")).toBeNull();
      expect(await byShortId.json()).toEqual([]);
    });
  });

  describe("access", () => {
    it("answers 404 for another organization and never lists its issues", async () => {
      expect((await get("/api/0/organizations/globex/issues/")).status).toBe(404);
      expect((await get("/api/0/organizations/globex/issues/", orgToken)).status).toBe(404);
      expect((await list("query=")).map((i) => i.id)).not.toContain(foreignIssueId);
      const own = await get("/api/0/organizations/globex/issues/", globexToken);
      expect(((await own.json()) as ListItem[]).map((i) => i.id)).toEqual([foreignIssueId]);
    });

    it("lists with an organization token (per-user flags read false) and needs event:read", async () => {
      const items = await list("query=assigned:bob", orgToken);
      expect(items.map(nameOf)).toEqual(["epsilon"]);
      expect(items[0]).toMatchObject({ isBookmarked: false, isSubscribed: false });
      const noScope = (await api().tokens.create({ user: "ada", scopes: ["org:read"] })).token;
      expect((await get("/api/0/organizations/acme/issues/", noScope)).status).toBe(403);
    });
  });

  describe("deprecated project list", () => {
    it("lists one project's issues with Deprecation and a successor Link", async () => {
      const response = await get(`/api/0/projects/acme/web/issues/?limit=2`);
      expect(response.status).toBe(200);
      expect(response.headers.get("deprecation")).toBe("true");
      expect(((await response.json()) as ListItem[]).map(nameOf)).toEqual(["alpha", "kappa"]);
      const link = response.headers.get("link") ?? "";
      expect(link).toMatch(
        /rel="previous"; results="false"; cursor="[^"]+", <[^>]+>; rel="next"; results="true"; cursor="[^"]+", /,
      );
      expect(
        link.endsWith(
          `, <${server.url}/api/0/organizations/acme/issues/?project=${projects.web}>; rel="successor-version"`,
        ),
      ).toBe(true);
      expect(response.headers.get("x-hits")).toBe("8");
    });

    it("takes query (default is:unresolved), statsPeriod and cursor, by project id or slug", async () => {
      expect(await (await get(`/api/0/projects/acme/api/issues/`)).json()).toEqual([]);
      const all = (await (
        await get(`/api/0/projects/acme/${projects.api}/issues/?query=&statsPeriod=`)
      ).json()) as ListItem[];
      expect(all.map(nameOf)).toEqual(["delta", "gamma"]);
      expect(all[0]).not.toHaveProperty("stats");
    });

    it("answers 404 for an unknown or foreign project", async () => {
      expect((await get(`/api/0/projects/acme/nope/issues/`)).status).toBe(404);
      expect((await get(`/api/0/projects/acme/shop/issues/`)).status).toBe(404);
      expect((await get(`/api/0/projects/acme/${projects.shop}/issues/`)).status).toBe(404);
      expect((await get(`/api/0/projects/globex/shop/issues/`)).status).toBe(404);
    });

    it("carries the host's mount prefix in pagination and successor links", async () => {
      const mounted = await serveFaultline(instance.faultline, "/monitor");
      try {
        const response = await fetch(`${mounted.url}/monitor/api/0/projects/acme/web/issues/?limit=1`, {
          headers: bearer(token),
        });
        const link = response.headers.get("link") ?? "";
        expect(link).toContain(`<${mounted.url}/monitor/api/0/projects/acme/web/issues/?limit=1&cursor=`);
        expect(link).toContain(
          `<${mounted.url}/monitor/api/0/organizations/acme/issues/?project=${projects.web}>; rel="successor-version"`,
        );
      } finally {
        await mounted.close();
      }
    });
  });

  describe("bulk update and delete", () => {
    let ops: string;
    const bulk: Record<string, string> = {};
    const path = (params: string) => `/api/0/organizations/acme/issues/?${params}`;
    const del = (params: string, auth = token) =>
      fetch(`${server.url}${path(params)}`, { method: "DELETE", headers: bearer(auth) });

    beforeAll(async () => {
      ops = (await api().projects.create({ organization: "acme", slug: "ops" })).id;
      const capture = captureFor(instance.faultline, { id: ops, organizationId: acmeId });
      for (const name of ["one", "two", "three", "four"]) {
        const { eventId } = await capture(
          errorEvent({
            fingerprint: [`bulk-${name}`],
            exception: { values: [{ type: "OpsError", value: `bulk ${name}` }] },
          }),
        );
        bulk[name] = await issueOfEvent(eventId);
      }
    });

    it("updates issues by id and answers only the changed fields", async () => {
      const response = await put(path(`id=${bulk.one}&id=${bulk.two}`), { status: "resolved" });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "resolved", substatus: null, statusDetails: {} });
      const resolved = await list(`${q("is:resolved")}&project=${ops}`);
      expect(resolved.map((i) => i.id).sort()).toEqual([bulk.one, bulk.two].sort());
    });

    it("updates the issues matching query, status and project when no id is given", async () => {
      const response = await put(path(`${q("bulk")}&status=unresolved&project=${ops}`), { assignedTo: "bob" });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ assignedTo: "bob" });
      const assigned = await list(`${q("assigned:bob")}&project=${ops}`);
      expect(assigned.map((i) => i.id).sort()).toEqual([bulk.three, bulk.four].sort());
    });

    it("answers 204 when nothing matches, including another organization's ids", async () => {
      expect((await put(path(`${q("no-such-words")}&project=${ops}`), { status: "resolved" })).status).toBe(204);
      expect((await put(path(`id=${foreignIssueId}`), { status: "resolved" })).status).toBe(204);
      const foreign = await fetch(`${server.url}/api/0/organizations/globex/issues/${foreignIssueId}/`, {
        headers: bearer(globexToken),
      });
      expect((await foreign.json()).status).toBe("unresolved");
    });

    it("validates ids and the body, and needs event:write", async () => {
      expect((await put(path("id=abc"), { status: "resolved" })).status).toBe(400);
      expect(
        (await put(path(Array.from({ length: 1001 }, (_, i) => `id=${i + 1}`).join("&")), { status: "resolved" }))
          .status,
      ).toBe(400);
      expect((await put(path(`id=${bulk.one}`), { status: "fixed" })).status).toBe(400);
      expect((await put(path(`id=${bulk.one}`), { status: "resolved" }, readToken)).status).toBe(403);
    });

    it("deletes by id and by filters (204, event:admin), leaving other organizations alone", async () => {
      const write = (await api().tokens.create({ user: "ada", scopes: ["event:write"] })).token;
      expect((await del(`id=${bulk.one}`, write)).status).toBe(403);
      expect((await del(`id=${bulk.one}&id=${foreignIssueId}`)).status).toBe(204);
      expect((await get(`/api/0/organizations/acme/issues/${bulk.one}/`)).status).toBe(404);
      expect((await get(`/api/0/organizations/globex/issues/${foreignIssueId}/`, globexToken)).status).toBe(200);
      expect((await del(`${q("bulk four")}&project=${ops}`, orgToken)).status).toBe(204);
      const left = await list(`query=&project=${ops}`);
      expect(left.map((i) => i.id).sort()).toEqual([bulk.two, bulk.three].sort());
      expect((await del(`${q("nothing matches this")}&project=${ops}`)).status).toBe(204);
    });
  });

  describe("pagination while new issues arrive (property)", () => {
    let feedToken: string;
    let capture: ReturnType<typeof captureFor>;
    let sequence = 0;
    const existing = new Set<string>();
    const feedEvent = (n: number, user?: string) =>
      errorEvent({
        fingerprint: [`feed-${n}`],
        exception: { values: [{ type: "FeedError", value: `feed ${n}` }] },
        ...(user ? { user: { id: user } } : {}),
      });
    const newIssue = async () => issueOfEvent((await capture(feedEvent(++sequence))).eventId);

    beforeAll(async () => {
      const org = await api().organizations.create({ slug: "feed" });
      const owner = await api().users.create({ username: "feeder" });
      await api().members.add({ organization: "feed", user: owner.id, role: "owner" });
      const project = await api().projects.create({ organization: "feed", slug: "stream" });
      feedToken = (await api().tokens.create({ user: owner.id, scopes: ["event:read"] })).token;
      capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
      for (let i = 0; i < 45; i++) {
        // Three issues per instant: equal lastSeen / firstSeen keys, so the id must break ties.
        if (i % 3 === 0) tick(1000);
        existing.add(await newIssue());
      }
      // Varied counters (with ties) for sort=freq and sort=user.
      for (let n = 1; n <= sequence; n += 4) {
        for (let k = 0; k <= n % 3; k++) await capture(feedEvent(n, `u${k}`));
      }
    });

    /** A small deterministic PRNG, so a failure replays with the same page sizes. */
    const random = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

    for (const sort of ISSUE_SORTS) {
      it(`sort=${sort}: walking next sees every pre-existing issue exactly once, with no empty page before the last`, async () => {
        const next = random(sort.length * 7919);
        const seen: string[] = [];
        let limit = 1 + Math.floor(next() * 7);
        let url: string | undefined = `${server.url}/api/0/organizations/feed/issues/?sort=${sort}&limit=${limit}`;
        while (url) {
          const response: Response = await fetch(url, { headers: bearer(feedToken) });
          expect(response.status).toBe(200);
          const page = ((await response.json()) as ListItem[]).map((item) => item.id);
          expect(page.length, `empty page in the middle (sort=${sort})`).toBeGreaterThan(0);
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page);
          // New issues keep arriving between pages. Events for existing issues that are not yet
          // visited are excluded on purpose: a new event moves an issue's lastSeen (and count)
          // ahead of the cursor, so a keyset walk cannot see it again — Sentry behaves the same.
          tick(1000);
          for (let k = Math.floor(next() * 3); k > 0; k--) await newIssue();
          url = linkOf(response, "next");
          limit = 1 + Math.floor(next() * 7);
          if (url) url = url.replace(/limit=\d+/, `limit=${limit}`);
        }
        const preExisting = seen.filter((id) => existing.has(id));
        expect(preExisting.length).toBe(existing.size);
        expect(new Set(preExisting).size).toBe(existing.size);
        expect(new Set(seen).size, "no issue twice, new ones included").toBe(seen.length);
      });
    }
  });

  describe("keyset pagination with heavy ties (property)", () => {
    const COUNT = 120;
    let ties: IssueListQuery;
    let tiesToken: string;
    let allIds: string[];

    beforeAll(async () => {
      const org = await api().organizations.create({ slug: "ties" });
      const project = await api().projects.create({ organization: "ties", slug: "tied" });
      tiesToken = (await api().tokens.create({ organization: "ties", scopes: ["event:read"] })).token;
      // Every sort key takes a handful of values: whole runs of equal keys, so the id breaks most
      // ties; some timestamps differ only below the millisecond (rows written by SQL, imports),
      // which a cursor cut to milliseconds would skip or repeat.
      await sql`
        INSERT INTO ${sql.id(instance.schema, "issues")}
          (organization_id, project_id, short_number, type, title, culprit, message, level, platform, metadata, status, substatus, first_seen, last_seen, times_seen, user_count)
        SELECT ${sql.lit(Number(org.id))}, ${sql.lit(Number(project.id))}, g, 'error', 'TieError: ' || g, '', '', 'error', 'node', '{}',
               'unresolved', 'ongoing',
               timestamptz '2026-01-01T00:00:00Z' + (g % 3) * interval '1 millisecond' + (g % 2) * interval '7 microseconds',
               timestamptz '2026-02-01T00:00:00Z' + (g % 4) * interval '1 millisecond' + (g % 5) * interval '1 microsecond',
               g % 3, g % 2
        FROM generate_series(1, ${sql.lit(COUNT)}) AS g`.execute(db());
      ties = new IssueListQuery(db(), { organizationId: Number(org.id), userId: null, now });
      allIds = (
        await db().selectFrom("issues").select("id").where("organization_id", "=", Number(org.id)).execute()
      ).map((row) => String(row.id));
    });

    /** Walks the whole list forward with `limit`, then back from its last page; the ids of each walk. */
    const walk = async (sort: IssueSort, limit: number) => {
      const params: Omit<ListParams, "cursor"> = {
        query: "",
        status: undefined,
        assignee: undefined,
        project: [],
        environment: [],
        sort,
        limit,
        shortIdLookup: false,
        window: null,
        series: null,
      };
      const forward: string[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const { page } = await ties.list({ ...params, cursor });
        forward.push(page.rows.map((row) => String(row.id)));
        if (!page.next.results) break;
        cursor = formatCursor(page.next.cursor);
      }
      const backward: string[][] = [];
      let { page } = await ties.list({ ...params, cursor });
      while (page.previous.results) {
        ({ page } = await ties.list({ ...params, cursor: formatCursor(page.previous.cursor) }));
        backward.unshift(page.rows.map((row) => String(row.id)));
      }
      return { forward: forward.flat(), backward: [...backward.flat(), ...(forward.at(-1) ?? [])] };
    };

    const expectEveryIdOnce = (ids: string[], label: string) => {
      expect(ids.length, label).toBe(COUNT);
      expect([...ids].sort(), label).toEqual([...allIds].sort());
    };

    it("walks every issue exactly once, forward and back, in every sort, one issue per page", async () => {
      for (const sort of ISSUE_SORTS) {
        const { forward, backward } = await walk(sort, 1);
        expectEveryIdOnce(forward, `sort=${sort}`);
        expect(backward, `sort=${sort} backward`).toEqual(forward);
      }
    });

    it("any sort and page size: every issue exactly once, in one order both ways", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ISSUE_SORTS),
          fc.integer({ min: 2, max: COUNT + 1 }),
          async (sort, limit) => {
            const { forward, backward } = await walk(sort, limit);
            expectEveryIdOnce(forward, `sort=${sort} limit=${limit}`);
            expect(backward).toEqual(forward);
          },
        ),
        { numRuns: 20, seed: 20_260_501 },
      );
    });

    it("over HTTP: Link cursors walk every issue exactly once in every sort", async () => {
      for (const sort of ISSUE_SORTS) {
        const seen: string[] = [];
        let url: string | undefined = `${server.url}/api/0/organizations/ties/issues/?query=&sort=${sort}&limit=7`;
        let last: Response | undefined;
        while (url) {
          last = await fetch(url, { headers: bearer(tiesToken) });
          expect(last.status).toBe(200);
          seen.push(...((await last.json()) as ListItem[]).map((item) => item.id));
          url = linkOf(last, "next");
        }
        expectEveryIdOnce(seen, `sort=${sort}`);
        // And back: previous links from the last page reach the first.
        const back: string[] = [];
        url = last ? linkOf(last, "previous") : undefined;
        while (url) {
          const response = await fetch(url, { headers: bearer(tiesToken) });
          back.unshift(...((await response.json()) as ListItem[]).map((item) => item.id));
          url = linkOf(response, "previous");
        }
        expect([...back, ...seen.slice(back.length)], `sort=${sort} backward`).toEqual(seen);
      }
    });
  });

  describe("at volume", () => {
    let organizationId: number;
    let volumeToken: string;
    let rows: number;

    beforeAll(async () => {
      const org = await api().organizations.create({ slug: "volume" });
      organizationId = Number(org.id);
      const owner = await api().users.create({ username: "volume-owner" });
      await api().members.add({ organization: "volume", user: owner.id, role: "owner" });
      const project = await api().projects.create({ organization: "volume", slug: "big" });
      volumeToken = (await api().tokens.create({ user: owner.id, scopes: ["event:read"] })).token;
      // Enough rows that a sequential scan would be the planner's choice without the indexes.
      rows = instance.backend === "pglite" ? 1_200 : 40_000;
      await sql`
        INSERT INTO ${sql.id(instance.schema, "issues")}
          (organization_id, project_id, short_number, type, title, culprit, message, level, platform, metadata, status, substatus, first_seen, last_seen, times_seen, user_count)
        SELECT ${sql.lit(organizationId)}, ${sql.lit(Number(project.id))}, g, 'error', 'VolumeError: row ' || g, 'handler(app.js)', 'row ' || g, 'error', 'node', '{}',
               CASE WHEN g % 10 = 0 THEN 'resolved' ELSE 'unresolved' END, 'ongoing',
               timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second',
               timestamptz '2026-02-01T00:00:00Z' + ((g * 7919) % ${sql.lit(rows)}) * interval '1 second',
               (g * 31) % 1000, g % 50
        FROM generate_series(1, ${sql.lit(rows)}) AS g`.execute(db());
      await sql`UPDATE ${sql.id(instance.schema, "projects")} SET next_short_id = ${sql.lit(rows + 1)} WHERE id = ${sql.lit(Number(project.id))}`.execute(
        db(),
      );
      await sql`ANALYZE ${sql.id(instance.schema, "issues")}`.execute(db());
    });

    it("counts X-Hits up to 1000 only", async () => {
      const response = await get("/api/0/organizations/volume/issues/?query=&limit=5&statsPeriod=", volumeToken);
      expect(response.headers.get("x-hits")).toBe("1000");
      expect(response.headers.get("x-max-hits")).toBe("1000");
      expect((await response.json()) as ListItem[]).toHaveLength(5);
      const few = await get(`/api/0/organizations/volume/issues/?${q("timesSeen:>=998")}&limit=5`, volumeToken);
      expect(Number(few.headers.get("x-hits"))).toBeLessThan(1000);
    });

    it("plans the default list and every sort (first and later pages) on an issues_by_* index, not a Seq Scan (PostgreSQL)", async (context) => {
      // PGlite's planner statistics and costs are not what production runs on.
      if (instance.backend === "pglite") context.skip();
      const filters = { query: undefined, status: undefined, assignee: undefined, project: [], environment: [] };
      const { condition } = await issueCondition(db(), filters, { organizationId, userId: null, now });
      const expected: Record<string, RegExp> = {
        date: /issues_by_(status_)?last_seen/,
        new: /issues_by_first_seen/,
        freq: /issues_by_times_seen/,
        user: /issues_by_user_count/,
      };
      for (const sort of ISSUE_SORTS) {
        const middle = {
          // Timestamp cursors hold epoch microseconds.
          date: Date.parse("2026-02-01T05:00:00Z") * 1000,
          new: Date.parse("2026-01-01T05:00:00Z") * 1000,
          freq: 500,
          user: 25,
        }[sort];
        for (const after of [null, { value: middle, id: rows / 2 }]) {
          const plan = (
            await pageQuery(db(), organizationId, condition, sort, { after, order: "desc", limit: 101 }).explain()
          )
            .map((row) => String(row["QUERY PLAN"]))
            .join("\n");
          expect(plan, `sort=${sort}`).toMatch(expected[sort] as RegExp);
          expect(plan, `sort=${sort}`).not.toMatch(/Seq Scan on issues/);
          expect(plan, `sort=${sort}`).not.toMatch(/Sort Key/);
        }
      }
    });
  });
});
