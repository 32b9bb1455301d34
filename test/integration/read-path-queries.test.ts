import { PGlite } from "@electric-sql/pglite";
import { Kysely, type LogEvent, PostgresDialect } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { randomHex } from "../../src/crypto/secrets.js";
import { pickBackend } from "../../src/testing/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * How many statements one read costs, counted on the Kysely instance the instance runs on (its
 * `log` hook sees every statement, in or out of a transaction). #14 asks for the single issue in
 * at most 3: the token, the organization with the caller's membership, the issue with everything
 * it shows.
 */
describe("read path: statements per request", () => {
  const statements: string[] = [];
  let kysely: Kysely<unknown>;
  let closeDatabase: () => Promise<void>;
  let faultline: Faultline<FaultlineApi>;
  let server: RunningServer;
  let userToken: string;
  let organizationToken: string;
  let issueId: string;
  let shortId: string;
  let otherIssue: { id: string; shortId: string };

  beforeAll(async () => {
    const log = (event: LogEvent) => void statements.push(event.query.sql);
    const { backend, url } = await pickBackend();
    if (backend === "pglite" || !url) {
      const pglite = await PGlite.create();
      kysely = new Kysely({ dialect: new PGliteDialect(pglite), log });
      closeDatabase = () => kysely.destroy();
    } else {
      kysely = new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }),
        log,
      });
      closeDatabase = async () => {
        await kysely.schema.dropSchema(schema).ifExists().cascade().execute();
        await kysely.destroy();
      };
    }
    const schema = `faultline_test_${randomHex(6)}`;
    faultline = createFaultline({ database: kysely, schema, worker: false, logger: silentLogger });
    const { api } = faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test" });
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    await api.users.create({ username: "bob", email: "bob@acme.test" });
    await api.members.add({ organization: "acme", user: "bob", role: "member" });
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    userToken = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    organizationToken = (await api.tokens.create({ organization: "acme", scopes: ["event:admin"] })).token;
    const capture = captureFor(faultline, { id: project.id, organizationId: org.id });
    for (let i = 0; i < 3; i++) await capture(errorEvent({ user: { id: `u${i}` } }));
    await capture(errorEvent({ fingerprint: ["another"] }));
    server = await serveFaultline(faultline);
    const listed = (await (
      await fetch(`${server.url}/api/0/organizations/acme/issues/?sort=freq`, { headers: bearer(userToken) })
    ).json()) as Array<{ id: string; shortId: string }>;
    const [issue, other] = listed;
    otherIssue = other as { id: string; shortId: string };
    issueId = issue?.id as string;
    shortId = issue?.shortId as string;
    // Everything the detail shows: an assignee, a bookmark, activity (the assignment, a comment).
    const put = await fetch(`${server.url}/api/0/organizations/acme/issues/${issueId}/`, {
      method: "PUT",
      headers: { ...bearer(userToken), "content-type": "application/json" },
      body: JSON.stringify({ assignedTo: "bob", isBookmarked: true }),
    });
    expect(put.status).toBe(200);
    const comment = await fetch(`${server.url}/api/0/organizations/acme/issues/${issueId}/comments/`, {
      method: "POST",
      headers: { ...bearer(userToken), "content-type": "application/json" },
      body: JSON.stringify({ text: "looking" }),
    });
    expect(comment.status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
    await faultline?.close();
    await closeDatabase?.();
  });

  /** The statements one GET runs, and its body. */
  async function countGet(path: string, token: string) {
    statements.length = 0;
    const response = await fetch(`${server.url}${path}`, { headers: bearer(token) });
    const body = (await response.json()) as Record<string, unknown>;
    return { status: response.status, body, statements: [...statements] };
  }

  it.each([
    ["numeric id, user token", () => issueId, () => userToken],
    ["short id, user token", () => shortId, () => userToken],
    ["numeric id, organization token", () => issueId, () => organizationToken],
  ])("GET a single issue (%s) runs at most 3 statements, and the issue is complete", async (_label, ref, token) => {
    const { status, body, statements: run } = await countGet(`/api/0/organizations/acme/issues/${ref()}/`, token());
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: issueId, count: "3", userCount: 3, assignedTo: "bob", numComments: 1 });
    expect((body.activity as unknown[]).length).toBeGreaterThanOrEqual(2);
    expect(run.length, `statements:\n${run.join("\n\n")}`).toBeLessThanOrEqual(3);
  });

  it("the compiled-once statements run with each request's values: another issue, by id and by short id", async () => {
    for (const ref of [otherIssue.id, otherIssue.shortId]) {
      const { status, body } = await countGet(`/api/0/organizations/acme/issues/${ref}/`, userToken);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: otherIssue.id,
        shortId: otherIssue.shortId,
        count: "1",
        assignedTo: null,
        isBookmarked: false,
        activity: [{ type: "first_seen" }],
      });
    }
    expect((await countGet(`/api/0/organizations/acme/issues/999999/`, userToken)).status).toBe(404);
  });

  it("a repeated GET with the same token skips the token lookup (cached): 2 statements", async () => {
    await countGet(`/api/0/organizations/acme/issues/${issueId}/`, userToken);
    const { status, statements: run } = await countGet(`/api/0/organizations/acme/issues/${issueId}/`, userToken);
    expect(status).toBe(200);
    expect(run.length, `statements:\n${run.join("\n\n")}`).toBe(2);
    expect(run.some((text) => text.includes("api_tokens"))).toBe(false);
  });

  it("the issue list with 24h stats is the organization and one statement (page, related data, stats, hit count)", async () => {
    const path = "/api/0/organizations/acme/issues/?statsPeriod=24h&sort=freq";
    await countGet(path, userToken);
    const { status, body, statements: run } = await countGet(path, userToken);
    expect(status).toBe(200);
    expect((body as unknown as unknown[]).length).toBe(2);
    const [first, second] = body as unknown as Array<Record<string, unknown>>;
    expect(first).toMatchObject({ id: issueId, assignedTo: "bob", isBookmarked: true, project: { slug: "web" } });
    expect(second).toMatchObject({
      id: otherIssue.id,
      assignedTo: null,
      isBookmarked: false,
      project: { slug: "web" },
    });
    expect((body as unknown as Array<{ stats: { "24h": Array<[number, number]> } }>)[0]?.stats["24h"]).toHaveLength(24);
    expect(run.length, `statements:\n${run.join("\n\n")}`).toBe(2);
  });
});
