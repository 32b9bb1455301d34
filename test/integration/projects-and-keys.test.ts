import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";
import { snapshotTables } from "../helpers/tenant.js";

/**
 * The endpoints sentry-cli and Sentry's API clients use to manage organizations, projects, teams,
 * members and client keys (#15): what they list is the caller's only, every route denies another
 * organization's resources with the 404 of a missing one, and slugs never move data across
 * organizations. (test/integration/cross-organization.test.ts walks every route generically too.)
 */
describe("projects, client keys, teams and members over HTTP", () => {
  let instance: TestInstance;
  let server: RunningServer;
  const call = httpCaller(() => server.url);
  let alpha: Awaited<ReturnType<typeof seedOrganization>>;
  let bravo: Awaited<ReturnType<typeof seedOrganization>>;
  let alphaIssue: string;

  async function ingest(projectId: string | number, key: string, message = "boom"): Promise<number> {
    const envelope = [JSON.stringify({}), '{"type":"event"}', JSON.stringify(errorEvent({ message }))].join("\n");
    const response = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body: envelope,
    });
    await response.arrayBuffer();
    return response.status;
  }

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    server = await serveFaultline(instance.faultline);
    alpha = await seedOrganization(instance.faultline, "alpha");
    bravo = await seedOrganization(instance.faultline, "bravo");
    for (const slug of ["alpha", "bravo"])
      await instance.faultline.api.teams.create({ organization: slug, slug: `${slug}-team` });
    expect(await ingest(alpha.project.id, alpha.project.keys[0]?.public as string)).toBe(200);
    await digestQueued(instance.faultline);
    alphaIssue = (
      (await call("GET", "/api/0/organizations/alpha/issues/", alpha.allScopesToken)).body as Array<{ id: string }>
    )[0]?.id as string;
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("GET /api/0/ answers anonymous callers too, and refuses a bad token", async () => {
    expect((await call("GET", "/api/0/")).body).toEqual({ version: "0", auth: null, user: null });
    expect(
      (await call("GET", "/api/0/", "sntryu_0000000000000000000000000000000000000000000000000000000000000000")).status,
    ).toBe(401);
    const user = await call("GET", "/api/0/", alpha.orgReadToken);
    expect(user.body).toMatchObject({
      version: "0",
      auth: { scopes: ["org:read"] },
      user: { username: "alpha-owner", email: "owner@alpha.test" },
    });
    const organizationToken = await call("GET", "/api/0/", alpha.orgBoundToken);
    expect(organizationToken.body).toMatchObject({ auth: { scopes: ["org:read", "project:read"] }, user: null });
    expect((await call("GET", "/api/0/auth/", alpha.orgReadToken)).body).toMatchObject({ username: "alpha-owner" });
    expect((await call("GET", "/api/0/auth/", alpha.orgBoundToken)).status).toBe(403);
  });

  it("the organization and project lists show the caller's only", async () => {
    const slugsOf = (body: Array<{ slug: string }>) => body.map((item) => item.slug).sort();
    expect(slugsOf((await call("GET", "/api/0/organizations/", bravo.allScopesToken)).body)).toEqual(["bravo"]);
    expect(slugsOf((await call("GET", "/api/0/organizations/", alpha.orgBoundToken)).body)).toEqual(["alpha"]);
    const projects = (await call("GET", "/api/0/projects/", bravo.allScopesToken)).body as Array<{
      slug: string;
      organization: { slug: string };
    }>;
    expect(projects.map((p) => p.organization.slug)).toEqual(["bravo"]);

    // A user in both organizations sees both; once deprovisioned from one, only the other.
    await instance.faultline.api.members.add({ organization: "bravo", user: alpha.owner.id, role: "member" });
    expect(slugsOf((await call("GET", "/api/0/organizations/", alpha.allScopesToken)).body)).toEqual([
      "alpha",
      "bravo",
    ]);
    expect(((await call("GET", "/api/0/projects/", alpha.allScopesToken)).body as unknown[]).length).toBe(2);
    const db = instance.faultline.container.resolve(tokens.Db);
    await db
      .updateTable("organization_members")
      .set({ active: false })
      .where("user_id", "=", Number(alpha.owner.id))
      .where("organization_id", "=", Number(bravo.organization.id))
      .execute();
    expect(slugsOf((await call("GET", "/api/0/organizations/", alpha.allScopesToken)).body)).toEqual(["alpha"]);
    expect(
      (
        (await call("GET", "/api/0/projects/", alpha.allScopesToken)).body as Array<{ organization: { slug: string } }>
      ).map((p) => p.organization.slug),
    ).toEqual(["alpha"]);
  });

  it("every new route answers another organization's resources with the 404 of a missing one, and changes nothing", async () => {
    const before = await snapshotTables(instance);
    const token = bravo.allScopesToken;
    const key = alpha.project.keys[0]?.public as string;
    const requests: Array<[string, string, unknown?]> = [
      ["GET", "/api/0/organizations/alpha/teams/"],
      ["GET", "/api/0/organizations/alpha/members/"],
      ["POST", "/api/0/teams/alpha/alpha-team/projects/", { name: "Stolen" }],
      ["POST", "/api/0/teams/bravo/alpha-team/projects/", { name: "Stolen" }],
      ["PUT", "/api/0/projects/alpha/web/", { name: "Renamed" }],
      ["DELETE", "/api/0/projects/alpha/web/"],
      ["POST", "/api/0/projects/alpha/web/keys/", { name: "Mine now" }],
      ["GET", `/api/0/projects/alpha/web/keys/${key}/`],
      ["PUT", `/api/0/projects/alpha/web/keys/${key}/`, { isActive: false }],
      ["DELETE", `/api/0/projects/alpha/web/keys/${key}/`],
      ["GET", `/api/0/projects/bravo/web/keys/${key}/`],
      ["PUT", `/api/0/projects/bravo/web/keys/${key}/`, { rateLimit: { window: 60, count: 0 } }],
      ["DELETE", `/api/0/projects/bravo/web/keys/${key}/`],
      ["PUT", `/api/0/projects/alpha/web/issues/?id=${alphaIssue}`, { status: "resolved" }],
      ["DELETE", `/api/0/projects/alpha/web/issues/?id=${alphaIssue}`],
    ];
    for (const [method, path, body] of requests) {
      const answer = await call(method, path, token, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      expect(answer.body).toEqual({ detail: "The requested resource does not exist" });
    }
    // Under B's own project path, A's issue id selects nothing.
    expect(
      (await call("PUT", `/api/0/projects/bravo/web/issues/?id=${alphaIssue}`, token, { status: "resolved" })).status,
    ).toBe(204);
    expect((await call("DELETE", `/api/0/projects/bravo/web/issues/?id=${alphaIssue}`, token)).status).toBe(204);
    expect(await snapshotTables(instance)).toEqual(before);
    expect(await ingest(alpha.project.id, key)).toBe(200);
  });

  it("slugs are per organization: B may name or rename its project like A's, and no body field moves a project", async () => {
    const created = await call("POST", "/api/0/teams/bravo/bravo-team/projects/", bravo.allScopesToken, {
      name: "Alpha API",
      slug: "alpha-api",
      organization: "alpha",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: "alpha-api", organization: { slug: "bravo" } });
    expect(
      (
        await call("POST", "/api/0/teams/bravo/bravo-team/projects/", bravo.allScopesToken, {
          name: "Again",
          slug: "alpha-api",
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call("POST", "/api/0/teams/bravo/bravo-team/projects/", bravo.allScopesToken, {
          name: "Digits",
          slug: "123",
        })
      ).status,
    ).toBe(400);

    const renamed = await call("PUT", "/api/0/projects/bravo/alpha-api/", bravo.allScopesToken, {
      slug: "web-2",
      name: "Web 2",
      organization: "alpha",
    });
    expect(renamed.body).toMatchObject({ slug: "web-2", name: "Web 2", organization: { slug: "bravo" } });
    expect((await call("PUT", "/api/0/projects/bravo/web-2/", bravo.allScopesToken, { slug: "web" })).status).toBe(409);
    // A's projects are as they were.
    const alphaProjects = (await call("GET", "/api/0/organizations/alpha/projects/", alpha.allScopesToken))
      .body as Array<{ slug: string; name: string }>;
    expect(alphaProjects.map((p) => p.slug)).toEqual(["web"]);
  });

  it("project-scoped bulk changes leave other projects' issues alone, even of the same organization", async () => {
    const other = await instance.faultline.api.projects.create({
      organization: "alpha",
      slug: "other",
      platform: "node",
    });
    const body = await call("PUT", `/api/0/projects/alpha/other/issues/?id=${alphaIssue}`, alpha.allScopesToken, {
      status: "resolved",
    });
    expect(body.status).toBe(204);
    expect(
      (await call("GET", `/api/0/organizations/alpha/issues/${alphaIssue}/`, alpha.allScopesToken)).body.status,
    ).toBe("unresolved");
    const own = await call("PUT", `/api/0/projects/alpha/web/issues/?id=${alphaIssue}`, alpha.allScopesToken, {
      status: "resolved",
    });
    expect(own.body).toMatchObject({ status: "resolved" });
    await call("PUT", `/api/0/projects/alpha/web/issues/?id=${alphaIssue}`, alpha.allScopesToken, {
      status: "unresolved",
    });
    expect(
      (
        await call("PUT", `/api/0/projects/alpha/web/issues/?environment=`, alpha.allScopesToken, {
          status: "resolved",
        })
      ).status,
    ).toBe(400);
    expect(other.slug).toBe("other");
  });

  it("teams and members list the organization's own", async () => {
    const teams = (await call("GET", "/api/0/organizations/bravo/teams/", bravo.allScopesToken)).body as Array<{
      slug: string;
      memberCount: number;
    }>;
    expect(teams.map((t) => t.slug)).toEqual(["bravo-team"]);
    const members = (await call("GET", "/api/0/organizations/bravo/members/", bravo.allScopesToken)).body as Array<{
      email: string;
      role: string;
      user: { username: string };
    }>;
    expect(members.map((m) => m.user.username).sort()).toEqual(["alpha-owner", "bravo-owner"]);
    expect(members.find((m) => m.user.username === "bravo-owner")).toMatchObject({
      role: "owner",
      email: "owner@bravo.test",
    });
  });

  it("deleting a project refuses its DSN keys at once", async () => {
    const doomed = await instance.faultline.api.projects.create({
      organization: "bravo",
      slug: "doomed",
      platform: "node",
    });
    const key = doomed.keys[0]?.public as string;
    expect(await ingest(doomed.id, key)).toBe(200);
    expect((await call("DELETE", "/api/0/projects/bravo/doomed/", bravo.orgReadToken)).status).toBe(403);
    expect((await call("DELETE", "/api/0/projects/bravo/doomed/", bravo.allScopesToken)).status).toBe(204);
    expect(await ingest(doomed.id, key)).toBe(401);
    expect((await call("GET", "/api/0/projects/bravo/doomed/", bravo.allScopesToken)).status).toBe(404);
  });

  it("the rate-limit cleanup keeps the counters of a key's current long window and drops ended ones", async () => {
    const db = instance.faultline.container.resolve(tokens.Db);
    const hourly = await call("POST", "/api/0/projects/bravo/web/keys/", bravo.allScopesToken, {
      name: "hourly",
      rateLimit: { window: 3600, count: 10 },
    });
    const hourlyId = Number(hourly.body.id);
    const minutely = Number(bravo.project.keys[0]?.id);
    const now = Date.now();
    const hourStart = new Date(now - (now % 3_600_000));
    await db
      .insertInto("rate_limit_windows")
      .values([
        { key_id: hourlyId, window_start: hourStart, used: 3 },
        { key_id: hourlyId, window_start: new Date(hourStart.getTime() - 3 * 3_600_000), used: 3 },
        { key_id: minutely, window_start: new Date(now - 10 * 60_000), used: 3 },
        { key_id: 987654, window_start: new Date(now - 10 * 60_000), used: 3 },
      ])
      .execute();
    await instance.faultline.worker.runDue("ingest.rate-limit-cleanup");
    const left = await db
      .selectFrom("rate_limit_windows")
      .select(["key_id", "window_start"])
      .where("key_id", "in", [hourlyId, minutely, 987654])
      .execute();
    const kept = left.map((row) => [row.key_id, new Date(row.window_start).getTime()]);
    // The current hour of the hourly key stays (10 minutes old or not); a minute's window 10 minutes old goes.
    expect(kept).toEqual([[hourlyId, hourStart.getTime()]]);
  });
});
