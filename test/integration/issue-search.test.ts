import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { SEARCH_KEYS } from "../../src/plugins/issues/search/keys.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

const HOUR = 3_600_000;
type Name = "alpha" | "beta" | "gamma" | "delta" | "epsilon" | "zeta";

const exception = (type: string, value: string, handled?: boolean) => ({
  values: [
    {
      type,
      value,
      ...(handled === undefined ? {} : { mechanism: { type: "generic", handled } }),
      stacktrace: { frames: [{ filename: "app.js", function: "handler", lineno: 3, in_app: true }] },
    },
  ],
});

/**
 * Sentry's issue search vocabulary, key by key, against six issues whose every property is known
 * (docs/search.md). Each row is a query as a Sentry user (or an agent) would write it and the exact
 * set of issues it must find.
 */
const CASES: Array<[query: string, expected: Name[]]> = [
  ["is:unresolved", ["alpha", "gamma", "epsilon", "zeta"]],
  ["is:resolved", ["beta"]],
  ["is:ignored", ["delta"]],
  ["is:archived", ["delta"]],
  ["is:for_review", ["alpha", "gamma", "zeta"]],
  ["is:assigned", ["gamma", "delta", "epsilon"]],
  ["is:unassigned", ["alpha", "beta", "zeta"]],
  ["is:linked", ["zeta"]],
  ["is:unlinked", ["alpha", "beta", "gamma", "delta", "epsilon"]],
  ["is:ongoing", ["epsilon"]],
  ["assigned:me", ["gamma"]],
  ["assigned:my_teams", ["delta"]],
  ["assigned:#backend", ["delta"]],
  ["assigned:bob@acme.test", ["epsilon"]],
  ["assigned:none", ["alpha", "beta", "zeta"]],
  ["assigned_or_suggested:me", ["gamma"]],
  ["assigned:[me, bob]", ["gamma", "epsilon"]],
  ["bookmarks:me", ["gamma"]],
  ["level:warning", ["beta"]],
  ["level:[info, warning]", ["beta", "gamma"]],
  ["!level:error", ["beta", "gamma"]],
  ["environment:prod", ["alpha", "gamma"]],
  ["environment:stag*", ["beta"]],
  ["!environment:prod", ["beta", "delta", "epsilon", "zeta"]],
  ["release:1.0.0", ["alpha", "gamma"]],
  ["release:latest", ["beta", "zeta"]],
  ["release:[1.0.0, 2.0.0]", ["alpha", "beta", "gamma", "zeta"]],
  ["firstRelease:latest", ["beta", "zeta"]],
  ["first_release:1.0.0", ["alpha", "gamma"]],
  ["times_seen:>4", ["alpha"]],
  ["timesSeen:2", ["gamma"]],
  ["times_seen:<=1", ["beta", "delta", "epsilon", "zeta"]],
  ["user_count:>=1", ["alpha", "gamma", "epsilon"]],
  ["age:-2h", ["epsilon", "zeta"]],
  ["first_seen:+4h", ["alpha", "beta"]],
  ["firstSeen:>=2026-03-01T05:00:00Z", ["delta", "epsilon", "zeta"]],
  ["last_seen:-1h", ["alpha", "zeta"]],
  ["lastSeen:2026-03-01", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]],
  ["user.id:u1", ["alpha"]],
  ["user.email:ada@users.test", ["alpha"]],
  ["user.email:*@users.test", ["alpha", "gamma"]],
  ["user.username:ada", ["alpha"]],
  ["user.ip:10.0.0.9", ["epsilon"]],
  ["user.ip_address:10.0.0.9", ["epsilon"]],
  ["has:user", ["alpha", "gamma", "epsilon"]],
  ["!has:user", ["beta", "delta", "zeta"]],
  ["has:user.email", ["alpha", "gamma"]],
  ['message:"timeout"', ["beta", "gamma"]],
  ['message:"timeout after"', ["beta"]],
  ["error.type:DatabaseUnavailable", ["beta"]],
  ["error.type:[TypeError, ValueError]", ["alpha", "delta", "epsilon", "zeta"]],
  ['error.value:"*timeout*"', ["beta"]],
  ['error.value:"bad value 42"', ["delta"]],
  ["error.handled:true", ["beta"]],
  ["error.handled:false", ["alpha"]],
  ["error.unhandled:true", ["alpha"]],
  ["url:https://shop.test/cart", ["alpha"]],
  ["url:*shop.test*", ["alpha"]],
  ["logger:payments", ["gamma"]],
  ["logger:app.*", ["alpha"]],
  ["browser.name:Chrome", ["alpha"]],
  ["browser.name:[Chrome, Firefox]", ["alpha", "beta"]],
  ['browser:"Chrome 120"', ["alpha"]],
  ["team:core", ["alpha", "delta"]],
  ["tags[team]:core", ["alpha", "delta"]],
  ["team:pay*", ["beta"]],
  ["!team:core", ["beta", "gamma", "epsilon", "zeta"]],
  ["has:team", ["alpha", "beta", "delta"]],
  ["cart", ["alpha"]],
  ['"bad value"', ["delta"]],
  ["is:unresolved level:error !has:user", ["zeta"]],
  ["tags[colour]:red", []],
];

describe("issue search: Sentry's vocabulary", () => {
  let now = new Date("2026-03-01T01:00:00.000Z");
  const tick = (ms: number) => (now = new Date(now.getTime() + ms));
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;
  let globexToken: string;
  const names = new Map<string, Name>();

  const get = (path: string, auth = token) => fetch(`${server.url}${path}`, { headers: bearer(auth) });
  const search = (query: string, auth = token) =>
    get(`/api/0/organizations/${auth === token ? "acme" : "globex"}/issues/?query=${encodeURIComponent(query)}`, auth);

  beforeAll(async () => {
    instance = await createTestInstance({ clock: { now: () => now }, worker: false, logger: silentLogger });
    const { api } = instance.faultline;
    const db = instance.faultline.container.resolve(tokens.Db);
    const acme = await api.organizations.create({ slug: "acme" });
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test" });
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    const bob = await api.users.create({ username: "bob", email: "bob@acme.test" });
    await api.members.add({ organization: "acme", user: bob.id, role: "member" });
    await api.teams.create({ organization: "acme", slug: "backend", name: "Backend" });
    await api.teams.addMember({ organization: "acme", team: "backend", user: ada.id });
    const web = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    token = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    server = await serveFaultline(instance.faultline);
    const capture = captureFor(instance.faultline, { id: web.id, organizationId: acme.id });

    const issueIds = new Map<Name, string>();
    const send = async (name: Name, event: Record<string, unknown>) => {
      const { eventId } = await capture(errorEvent({ fingerprint: [name], ...event }));
      const row = await db
        .selectFrom("events")
        .select("issue_id")
        .where("event_id", "=", eventId)
        .executeTakeFirstOrThrow();
      issueIds.set(name, String(row.issue_id));
      names.set(String(row.issue_id), name);
    };
    const update = async (name: Name, body: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/api/0/organizations/acme/issues/${issueIds.get(name)}/`, {
        method: "PUT",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
    };

    const alpha = {
      environment: "prod",
      release: "1.0.0",
      user: { id: "u1", email: "ada@users.test", username: "ada", ip_address: "10.0.0.1" },
      tags: { team: "core" },
      request: { url: "https://shop.test/cart?page=2#top" },
      logger: "app.cart",
      contexts: { browser: { name: "Chrome", version: "120" } },
      exception: exception("TypeError", "cart is undefined", false),
    };
    tick(HOUR);
    await send("alpha", alpha);
    tick(HOUR);
    await send("beta", {
      environment: "staging",
      release: "2.0.0",
      level: "warning",
      tags: { team: "payments" },
      contexts: { browser: { name: "Firefox", version: "121" } },
      exception: exception("DatabaseUnavailable", "connection timeout after 30s", true),
    });
    await update("beta", { status: "resolved" });
    tick(HOUR);
    const gamma = {
      environment: "prod",
      release: "1.0.0",
      level: "info",
      exception: undefined,
      message: "Payment timeout for order 7",
      user: { email: "bob@users.test" },
      logger: "payments",
    };
    await send("gamma", gamma);
    await send("gamma", gamma);
    await update("gamma", { assignedTo: "ada", isBookmarked: true });
    tick(HOUR);
    await send("delta", { tags: { team: "core" }, exception: exception("ValueError", "bad value 42") });
    await update("delta", { status: "ignored", assignedTo: "#backend" });
    tick(HOUR);
    await send("epsilon", { user: { ip_address: "10.0.0.9" } });
    await update("epsilon", { status: "resolved" });
    await update("epsilon", { status: "unresolved", assignedTo: "bob" });
    tick(HOUR);
    await send("zeta", { release: "2.0.0" });
    await api.apps.create({ organization: "acme", name: "Tracker", slug: "tracker", isInternal: true, scopes: [] });
    const installation = await db
      .selectFrom("app_installations")
      .select("id")
      .where("organization_id", "=", Number(acme.id))
      .executeTakeFirstOrThrow();
    await db
      .insertInto("external_issues")
      .values({
        organization_id: Number(acme.id),
        installation_id: installation.id,
        issue_id: Number(issueIds.get("zeta")),
        web_url: "https://tracker.test/1",
        identifier: "TRK-1",
        date_created: now,
      })
      .execute();
    tick(HOUR / 2);
    for (let i = 0; i < 4; i++) await send("alpha", alpha);

    // Another organization whose tag key must not make the key known in acme.
    const globex = await api.organizations.create({ slug: "globex" });
    const gus = await api.users.create({ username: "gus" });
    await api.members.add({ organization: "globex", user: gus.id, role: "owner" });
    const shop = await api.projects.create({ organization: "globex", slug: "shop" });
    globexToken = (await api.tokens.create({ user: gus.id, scopes: [...SCOPES] })).token;
    await captureFor(instance.faultline, { id: shop.id, organizationId: globex.id })(
      errorEvent({ tags: { "globex-only": "x" } }),
    );
  });

  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it.each(CASES)("%s", async (query, expected) => {
    const response = await search(query);
    const body = (await response.json()) as Array<{ id: string }> | { detail: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    const found = (body as Array<{ id: string }>).map((issue) => names.get(issue.id) ?? `foreign ${issue.id}`);
    expect(found.sort()).toEqual([...expected].sort());
  });

  it("answers 400 naming a key that is neither built in nor a tag of this organization", async () => {
    for (const [query, named] of [
      ["colour:red", '"colour"'],
      ["has:colour", '"colour"'],
      ["team:core foo.bar:1 !shade:dark", '"foo.bar", "shade"'],
      // Known in globex, not in acme: tag keys never cross organizations.
      ["globex-only:x", '"globex-only"'],
    ] as const) {
      const response = await search(query);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { detail: string; errors: { query: string[] } };
      expect(body.detail).toContain(`Error parsing search query: unknown search key`);
      expect(body.detail).toContain(named);
      expect(body.errors.query).toHaveLength(1);
    }
    expect((await search("globex-only:x", globexToken)).status).toBe(200);
  });

  it("answers 400 for values a built-in key cannot take", async () => {
    for (const [query, why] of [
      ["error.handled:maybe", 'invalid value "maybe" for "error.handled:"'],
      ["times_seen:lots", 'invalid number "lots" for "times_seen:"'],
      ["is:for-review", 'unknown value "for-review" for "is:"'],
      ["has:times_seen", '"has:times_seen" is not supported'],
      ["user.email:", 'missing value for "user.email:"'],
    ] as const) {
      const response = await search(query);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toContain(why);
    }
  });

  it("lists the vocabulary and the organization's own tag keys for the dashboard's suggestions", async () => {
    const response = await get("/api/0/organizations/acme/issue-search-keys/");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { keys: Array<{ key: string; aliases: string[] }>; tags: string[] };
    expect(body.keys.map((key) => key.key)).toEqual(SEARCH_KEYS.map((key) => key.key));
    expect(body.keys.find((key) => key.key === "timesSeen")?.aliases).toEqual(["times_seen"]);
    expect(body.tags).toContain("team");
    expect(body.tags).toContain("browser.name");
    expect(body.tags).not.toContain("globex-only");
    const foreign = (await (await get("/api/0/organizations/globex/issue-search-keys/", globexToken)).json()) as {
      tags: string[];
    };
    expect(foreign.tags).toContain("globex-only");
    expect(foreign.tags).not.toContain("team");
  });

  it("knows a tag key per instance: a second instance on its own database records it too", async () => {
    const other = await createTestInstance({ worker: false, logger: silentLogger });
    try {
      const { api } = other.faultline;
      // The same organization and project ids as acme/web here, in another database.
      const acme = await api.organizations.create({ slug: "acme" });
      const web = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
      await captureFor(other.faultline, { id: web.id, organizationId: acme.id })(
        errorEvent({ tags: { team: "core" } }),
      );
      const keys = await other.faultline.container
        .resolve(tokens.Db)
        .selectFrom("issue_tag_keys")
        .select("key")
        .where("key", "=", "team")
        .execute();
      expect(keys).toEqual([{ key: "team" }]);
    } finally {
      await other.close();
    }
  });
});
