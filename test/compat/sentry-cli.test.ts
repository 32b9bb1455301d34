import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * The real `sentry-cli` binary (the one the @sentry/cli package ships), unmodified and configured
 * only through its environment variables, against a real Faultline HTTP server: the commands a
 * team runs (`info`, `projects list`, `issues list|resolve|mute|unresolve`, `send-event`) work,
 * and their effect is checked through the API. Client keys with a rate limit are managed over
 * HTTP and ingest honours them at once.
 */

const SENTRY_CLI = fileURLToPath(new URL("../../node_modules/.bin/sentry-cli", import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Call = ReturnType<typeof httpCaller>;

describe("sentry-cli against a Faultline host", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;
  let organizationToken: string;
  let home: string;
  let project: { id: string; slug: string; dsnKey: string };
  let other: { id: string; dsnKey: string };
  const call: Call = httpCaller(() => server.url);

  /** Runs sentry-cli with nothing but these environment variables (a fresh HOME: no ~/.sentryclirc). */
  function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        SENTRY_CLI,
        args,
        {
          timeout: 60_000,
          env: {
            NODE_ENV: "test",
            PATH: process.env.PATH ?? "",
            HOME: home,
            SENTRY_URL: server.url,
            SENTRY_AUTH_TOKEN: token,
            SENTRY_ORG: "acme",
            SENTRY_PROJECT: project.slug,
            SENTRY_DISABLE_UPDATE_CHECK: "true",
            ...env,
          },
        },
        (error: Error | null, stdout: string, stderr: string) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async function ingest(projectId: string, key: string, message: string): Promise<number> {
    const event = {
      ...errorEvent({ message }),
      exception: { values: [{ type: "Error", value: message }] },
      event_id: crypto.randomUUID().replaceAll("-", ""),
    };
    const envelope = [JSON.stringify({ event_id: event.event_id }), '{"type":"event"}', JSON.stringify(event)].join(
      "\n",
    );
    const response = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body: envelope,
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function issuesOf(
    projectId: string,
  ): Promise<Array<{ id: string; status: string; title: string; shortId: string }>> {
    const { body } = await call(
      "GET",
      `/api/0/organizations/acme/issues/?project=${projectId}&query=&limit=100`,
      token,
    );
    return body;
  }

  async function statusOf(issueId: string): Promise<string> {
    const { body } = await call("GET", `/api/0/organizations/acme/issues/${issueId}/`, token);
    return body.status;
  }

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "sentry-cli-home-"));
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    server = await serveFaultline(instance.faultline);
    const seeded = await seedOrganization(instance.faultline, "acme");
    token = seeded.allScopesToken;
    organizationToken = seeded.orgBoundToken;
    project = {
      id: String(seeded.project.id),
      slug: seeded.project.slug,
      dsnKey: seeded.project.keys[0]?.public as string,
    };
    const second = await instance.faultline.api.projects.create({
      organization: "acme",
      slug: "api",
      platform: "node",
    });
    other = { id: String(second.id), dsnKey: second.keys[0]?.public as string };
    for (const message of ["first failure", "second failure", "third failure"])
      expect(await ingest(project.id, project.dsnKey, message)).toBe(200);
    expect(await ingest(other.id, other.dsnKey, "elsewhere")).toBe(200);
    await digestQueued(instance.faultline);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await instance?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("info: authenticates with the token and shows its user and scopes", async () => {
    const result = await cli(["info"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(server.url);
    expect(result.stdout).toContain("owner@acme.test");
    expect(result.stdout).toContain("project:write");

    // An organization token has no user: info shows its scopes all the same.
    const organization = await cli(["info"], { SENTRY_AUTH_TOKEN: organizationToken });
    expect(organization.code, organization.stderr).toBe(0);
    expect(organization.stdout).toContain("project:read");

    const refused = await cli(["info"], { SENTRY_AUTH_TOKEN: "sntrys_not-a-token" });
    expect(refused.code).not.toBe(0);
  });

  it("projects list: the organization's projects", async () => {
    const result = await cli(["projects", "list"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\bweb\b/);
    expect(result.stdout).toMatch(/\bapi\b/);
  });

  it("issues list: the project's issues", async () => {
    const result = await cli(["issues", "list", "--query", ""]);
    expect(result.code, result.stderr).toBe(0);
    const issues = await issuesOf(project.id);
    expect(issues).toHaveLength(3);
    for (const issue of issues) expect(result.stdout).toContain(issue.shortId);
    const [elsewhere] = await issuesOf(other.id);
    expect(result.stdout).not.toContain(elsewhere?.shortId);
  });

  it("events list: the project's events, newest first, not another project's", async () => {
    const db = instance.faultline.container.resolve(tokens.Db);
    const eventIdsOf = async (projectId: string) =>
      (
        await db
          .selectFrom("events")
          .select("event_id")
          .where("project_id", "=", Number(projectId))
          .orderBy("timestamp", "desc")
          .orderBy("id", "desc")
          .execute()
      ).map((row) => row.event_id);
    const result = await cli(["events", "list", "--show-user", "--show-tags"]);
    expect(result.code, result.stderr).toBe(0);
    const own = await eventIdsOf(project.id);
    expect(own.length).toBeGreaterThanOrEqual(3);
    // sentry-cli prints event ids as dashed UUIDs, with each event's title and tags.
    const listed = [...result.stdout.matchAll(/\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/g)].map((match) =>
      match[0].replaceAll("-", ""),
    );
    expect(listed).toEqual(own);
    expect(result.stdout).toContain("Error: first failure");
    expect(result.stdout).toContain("level: error");
    expect(await eventIdsOf(other.id)).toHaveLength(1);
  });

  it("issues resolve, mute and unresolve with -i change that issue only", async () => {
    const [target, bystander] = await issuesOf(project.id);
    const id = target?.id as string;
    let result = await cli(["issues", "resolve", "-i", id]);
    expect(result.code, result.stderr).toBe(0);
    expect(await statusOf(id)).toBe("resolved");
    expect(await statusOf(bystander?.id as string)).toBe("unresolved");

    result = await cli(["issues", "mute", "-i", id]);
    expect(result.code, result.stderr).toBe(0);
    expect(await statusOf(id)).toBe("ignored");

    result = await cli(["issues", "unresolve", "-i", id]);
    expect(result.code, result.stderr).toBe(0);
    expect(await statusOf(id)).toBe("unresolved");
  });

  it("issues -i with an issue of another project changes nothing", async () => {
    const [elsewhere] = await issuesOf(other.id);
    await cli(["issues", "resolve", "-i", elsewhere?.id as string]);
    expect(await statusOf(elsewhere?.id as string)).toBe("unresolved");
  });

  it("issues resolve --all resolves the project's unresolved issues (not another project's); unresolve -s resolved brings them back", async () => {
    let result = await cli(["issues", "resolve", "--all"]);
    expect(result.code, result.stderr).toBe(0);
    expect((await issuesOf(project.id)).map((issue) => issue.status)).toEqual(["resolved", "resolved", "resolved"]);
    expect((await issuesOf(other.id)).map((issue) => issue.status)).toEqual(["unresolved"]);

    result = await cli(["issues", "unresolve", "-s", "resolved"]);
    expect(result.code, result.stderr).toBe(0);
    expect((await issuesOf(project.id)).map((issue) => issue.status)).toEqual([
      "unresolved",
      "unresolved",
      "unresolved",
    ]);
  });

  it("send-event: the event arrives as an issue of the DSN's project", async () => {
    const dsn = `${server.url.replace("://", `://${project.dsnKey}@`)}/${project.id}`;
    const result = await cli(["send-event", "-m", "sent by sentry-cli"], { SENTRY_DSN: dsn });
    expect(result.code, result.stderr).toBe(0);
    await digestQueued(instance.faultline);
    const issues = await issuesOf(project.id);
    expect(issues.map((issue) => issue.title)).toContain("sent by sentry-cli");
  });

  it("client keys: created with a rate limit over HTTP, ingest answers 429 past it; changed, disabled and deleted keys apply at once", async () => {
    const keysPath = `/api/0/projects/acme/${project.slug}/keys/`;
    const created = await call("POST", keysPath, token, { name: "Limited", rateLimit: { window: 3600, count: 2 } });
    expect(created.status).toBe(201);
    const key = created.body as {
      id: string;
      public: string;
      name: string;
      rateLimit: unknown;
      isActive: boolean;
      dsn: { public: string };
    };
    expect(key).toMatchObject({ name: "Limited", rateLimit: { window: 3600, count: 2 }, isActive: true });
    expect(key.dsn.public).toBe(`${server.url.replace("://", `://${key.public}@`)}/${project.id}`);

    expect(await ingest(project.id, key.public, "limited 1")).toBe(200);
    expect(await ingest(project.id, key.public, "limited 2")).toBe(200);
    const refused = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${key.public}`, {
      method: "POST",
      body: [JSON.stringify({}), '{"type":"event"}', JSON.stringify(errorEvent())].join("\n"),
    });
    expect(refused.status).toBe(429);
    // Windows are aligned to multiples of their length, so Retry-After is the time to the next
    // hour boundary: anything from 1 s to an hour, depending on when the test runs.
    const retryAfter = Number(refused.headers.get("retry-after"));
    const toBoundary = 3600 - (Math.floor(Date.now() / 1000) % 3600);
    const drift = (((retryAfter - toBoundary) % 3600) + 3600) % 3600;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(Math.min(drift, 3600 - drift)).toBeLessThanOrEqual(2);
    // The other key of the project is not limited.
    expect(await ingest(project.id, project.dsnKey, "unlimited")).toBe(200);

    // Read back by public key (Sentry's key id) and by numeric id.
    for (const ref of [key.public, key.id]) {
      const read = await call("GET", `${keysPath}${ref}/`, token);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: key.id, rateLimit: { window: 3600, count: 2 } });
    }
    expect((await call("GET", keysPath, token)).body.map((k: { public: string }) => k.public)).toContain(key.public);

    // Lifting the limit applies to the very next request (the DSN cache is invalidated).
    const lifted = await call("PUT", `${keysPath}${key.public}/`, token, { rateLimit: null });
    expect(lifted.status).toBe(200);
    expect(lifted.body.rateLimit).toBeNull();
    expect(await ingest(project.id, key.public, "limited 3")).toBe(200);

    const disabled = await call("PUT", `${keysPath}${key.public}/`, token, { isActive: false, name: "Off" });
    expect(disabled.body).toMatchObject({ isActive: false, name: "Off" });
    const publicKeys = async (status: string) =>
      ((await call("GET", `${keysPath}?status=${status}`, token)).body as Array<{ public: string }>).map(
        (k) => k.public,
      );
    expect(await publicKeys("inactive")).toEqual([key.public]);
    expect(await publicKeys("active")).not.toContain(key.public);
    expect(await ingest(project.id, key.public, "while disabled")).toBe(401);
    await call("PUT", `${keysPath}${key.public}/`, token, { isActive: true });
    expect(await ingest(project.id, key.public, "enabled again")).toBe(200);

    expect((await call("PUT", `${keysPath}${key.public}/`, token, { rateLimit: { window: 0, count: 5 } })).status).toBe(
      400,
    );
    expect((await call("PUT", `${keysPath}${key.public}/`, token, { rateLimit: { count: 5 } })).status).toBe(400);

    expect((await call("DELETE", `${keysPath}${key.public}/`, token)).status).toBe(204);
    expect(await ingest(project.id, key.public, "after revocation")).toBe(401);
    expect((await call("GET", `${keysPath}${key.public}/`, token)).status).toBe(404);
  });
});
