import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature } from "../../src/verify.js";
import { outboxRow } from "../helpers/deliveries.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { waitFor } from "../helpers/wait.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer, serveFaultline } from "../helpers/server.js";

interface DeliveryItem {
  id: string;
  destinationType: string;
  destinationId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  dateCreated: string;
  nextAttemptAt: string | null;
  dateFinished: string | null;
}

describe("deliveries listing, manual redelivery and the app request log", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  let app: { clientSecret: string; slug: string };
  /** Every client secret the app has had: deliveries were signed with each in turn. */
  const secrets: string[] = [];

  async function call(method: string, path: string, token?: string) {
    const response = await fetch(`${server.url}${path}`, { method, headers: token ? bearer(token) : {} });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }
  const list = async (org: string, token: string, query = ""): Promise<DeliveryItem[]> =>
    (await call("GET", `/api/0/organizations/${org}/deliveries/${query}`, token)).body;

  beforeAll(async () => {
    // acme's installation.created is answered 400 (not retried: failed); everything after, 200.
    receiver = await startReceiver([400]);
    instance = await createTestInstance({
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, retryDelays: [0.05], timeoutMs: 1000 },
    });
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    server = await serveFaultline(instance.faultline);
    app = await instance.faultline.api.apps.create({
      organization: "acme",
      name: "Hooked",
      slug: "hooked",
      webhookUrl: `${receiver.url}/hooked`,
      events: ["installation", "error"],
    });
    secrets.push(app.clientSecret);
    await instance.faultline.api.installations.install({ organization: "acme", app: "hooked" });
    await receiver.until((all) => all.length >= 1);
    await instance.faultline.api.installations.install({ organization: "globex", app: "hooked" });
    await receiver.until((all) => all.length >= 2);
    await waitFor(async () => (await list("globex", globex.orgReadToken)).some((d) => d.status === "delivered"));
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await instance?.close();
  });

  it("lists an organization's deliveries, newest first, without secrets or bodies", async () => {
    const response = await call("GET", "/api/0/organizations/acme/deliveries/", acme.orgReadToken);
    expect(response.status).toBe(200);
    expect(response.headers.get("link")).toMatch(/rel="next"/);
    const [failed] = response.body as DeliveryItem[];
    expect(response.body).toHaveLength(1);
    expect(failed).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      target: {
        type: "app",
        id: expect.stringMatching(/^\d+$/),
        url: `${receiver.url}/hooked`,
        name: "Hooked",
        project: null,
      },
      destinationType: "app",
      destinationId: expect.any(String),
      eventType: "installation.created",
      status: "failed",
      state: "dead",
      attempts: 1,
      lastAttemptAt: expect.stringMatching(/\.\d{3}Z$/),
      lastResponseCode: 400,
      lastError: null,
      lastDurationMs: expect.any(Number),
      dateCreated: expect.stringMatching(/\.\d{3}Z$/),
      nextAttemptAt: null,
      dateFinished: expect.stringMatching(/\.\d{3}Z$/),
    });
    expect(JSON.stringify(response.body)).not.toContain(app.clientSecret);
    const globexList = await list("globex", globex.orgReadToken);
    expect(globexList.map((d) => [d.eventType, d.status])).toEqual([["installation.created", "delivered"]]);
    expect(globexList[0]?.id).not.toBe(failed?.id);
  });

  it("filters by status and pages with cursors; bad parameters → 400", async () => {
    expect(await list("acme", acme.orgReadToken, "?status=delivered")).toEqual([]);
    expect((await list("acme", acme.orgReadToken, "?status=failed")).map((d) => d.status)).toEqual(["failed"]);
    const badStatus = await call("GET", "/api/0/organizations/acme/deliveries/?status=lost", acme.orgReadToken);
    expect(badStatus.status).toBe(400);
    expect(Object.keys(badStatus.body.errors)).toEqual(["status"]);
    expect((await call("GET", "/api/0/organizations/acme/deliveries/?per_page=-1", acme.orgReadToken)).status).toBe(
      400,
    );
    expect((await call("GET", "/api/0/organizations/acme/deliveries/?cursor=1:2", acme.orgReadToken)).status).toBe(400);
  });

  it("needs org:read in that organization: 403 without it, 404 for another organization", async () => {
    const forbidden = await call("GET", "/api/0/organizations/acme/deliveries/", acme.eventReadToken);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.requiredScopes).toEqual(["org:read"]);
    expect((await call("GET", "/api/0/organizations/globex/deliveries/", acme.orgReadToken)).status).toBe(404);
    expect((await call("GET", "/api/0/organizations/acme/deliveries/")).status).toBe(401);
  });

  it("redelivers a finished delivery: same id and body, the app's current secret, needs org:write", async () => {
    const [failed] = await list("acme", acme.orgReadToken, "?status=failed");
    const path = `/api/0/organizations/acme/deliveries/${failed?.id}/redeliver/`;
    const forbidden = await call("POST", path, acme.orgReadToken);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.requiredScopes).toEqual(["org:write"]);
    expect(
      (await call("POST", `/api/0/organizations/globex/deliveries/${failed?.id}/redeliver/`, globex.allScopesToken))
        .status,
    ).toBe(404);
    const { clientSecret } = await instance.faultline.api.apps.rotateSecret("hooked");
    secrets.push(clientSecret);
    const before = receiver.received.length;
    const redelivered = await call("POST", path, acme.allScopesToken);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({
      id: failed?.id,
      status: "pending",
      nextAttemptAt: expect.any(String),
      dateFinished: null,
    });
    const [resent] = (await receiver.until((all) => all.length > before)).slice(before);
    expect(resent?.headers["webhook-id"]).toBe(failed?.id);
    expect(resent?.json).toMatchObject({
      action: "created",
      data: { installation: { organization: { slug: "acme" } } },
    });
    expect(verifySignature(resent?.body as string, resent?.headers["svc-hook-signature"] as string, clientSecret)).toBe(
      true,
    );
    const done = await waitFor(async () =>
      (await list("acme", acme.orgReadToken)).find((d) => d.id === failed?.id && d.status === "delivered"),
    );
    expect(done).toMatchObject({ attempts: 2, lastResponseCode: 200, nextAttemptAt: null });
  });

  it("refuses unknown ids (404), pending deliveries and deliveries to an uninstalled app (409)", async () => {
    expect(
      (await call("POST", "/api/0/organizations/acme/deliveries/not-a-uuid/redeliver/", acme.allScopesToken)).status,
    ).toBe(404);
    const unknown = await call(
      "POST",
      "/api/0/organizations/acme/deliveries/00000000-0000-4000-8000-000000000000/redeliver/",
      acme.allScopesToken,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "The requested resource does not exist" });
    expect(
      (
        await call(
          "GET",
          "/api/0/organizations/acme/deliveries/00000000-0000-4000-8000-000000000000/redeliver/",
          acme.allScopesToken,
        )
      ).status,
    ).toBe(405);

    const project = await instance.faultline.api.projects.create({ organization: "globex", slug: "api" });
    // The receiver hangs on purpose, so that the delivery is still pending when redelivery is asked.
    const slow = await startReceiver([{ status: 200, delayMs: 400 }]);
    try {
      await instance.faultline.api.apps.update("hooked", { webhookUrl: `${slow.url}/slow` });
      await captureFor(instance.faultline, { id: project.id, organizationId: globex.organization.id })(
        errorEvent({ fingerprint: ["redeliver"] }),
      );
      const pending = await waitFor(async () =>
        (await list("globex", globex.orgReadToken)).find((d) => d.eventType === "error.created"),
      );
      const busy = await call(
        "POST",
        `/api/0/organizations/globex/deliveries/${pending.id}/redeliver/`,
        globex.allScopesToken,
      );
      expect(busy.status).toBe(409);
      expect(busy.body.detail).toMatch(/pending/);
      await waitFor(async () =>
        (await list("globex", globex.orgReadToken)).find((d) => d.id === pending.id && d.status === "delivered"),
      );

      // Once the app is uninstalled, that organization's events are never sent to it again.
      const [installation] = (
        await call("GET", "/api/0/organizations/globex/svc-app-installations/", globex.orgReadToken)
      ).body as Array<{ uuid: string }>;
      expect(
        (await call("DELETE", `/api/0/svc-app-installations/${installation?.uuid}/`, globex.allScopesToken)).status,
      ).toBe(204);
      const gone = await call(
        "POST",
        `/api/0/organizations/globex/deliveries/${pending.id}/redeliver/`,
        globex.allScopesToken,
      );
      expect(gone.status).toBe(409);
      expect(gone.body).toEqual({ detail: "The destination of this delivery no longer exists" });
    } finally {
      await slow.close();
    }
  });

  it("shows the app's request log to its owner: newest first, never a secret or signature", async () => {
    const log = await call("GET", "/api/0/svc-apps/hooked/requests/", acme.orgReadToken);
    expect(log.status).toBe(200);
    const entries = log.body as Array<Record<string, unknown>>;
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(entries.at(-1)).toEqual({
      date: expect.stringMatching(/\.\d{3}Z$/),
      responseCode: 400,
      webhookUrl: `${receiver.url}/hooked`,
      eventType: "installation.created",
      organization: { slug: "acme", name: "acme Inc" },
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      attempt: 1,
      requestBody: expect.stringContaining('"action":"created"'),
      responseBody: "ok",
    });
    const dates = entries.map((e) => e.date as string);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(entries.map((e) => (e.organization as { slug: string }).slug)).toContain("globex");
    const text = JSON.stringify(entries);
    // The secrets these requests were signed with: the app's, before and after the rotation above,
    // as the delivery rows hold them (the one in force when each log entry was written).
    const db = instance.faultline.container.resolve(tokens.Db);
    const { client_secret: current } = await db
      .selectFrom("apps")
      .select("client_secret")
      .where("slug", "=", "hooked")
      .executeTakeFirstOrThrow();
    const signedWith = await db
      .selectFrom("deliveries")
      .select("secret")
      .distinct()
      .where(
        "id",
        "in",
        entries.map((e) => e.deliveryId as string),
      )
      .execute();
    const inForce = new Set([...secrets, current, ...signedWith.map((d) => d.secret)]);
    expect(inForce.size).toBe(2);
    expect(current).toBe(secrets.at(-1));
    for (const secret of inForce) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/signature/i);
    const signatures = receiver.received
      .flatMap((r) => [
        r.headers["svc-hook-signature"],
        String(r.headers["webhook-signature"] ?? "").replace(/^v1,/, ""),
      ])
      .filter((value): value is string => typeof value === "string" && value.length > 0);
    expect(signatures.length).toBeGreaterThanOrEqual(4);
    for (const signature of signatures) expect(text).not.toContain(signature);

    const errors = await call("GET", "/api/0/svc-apps/hooked/requests/?errorsOnly=true", acme.orgReadToken);
    expect((errors.body as Array<{ responseCode: number }>).map((e) => e.responseCode)).toEqual([400]);
    const ofType = await call("GET", "/api/0/svc-apps/hooked/requests/?eventType=error.created", acme.orgReadToken);
    expect((ofType.body as Array<{ eventType: string }>).every((e) => e.eventType === "error.created")).toBe(true);
    expect(ofType.body.length).toBeGreaterThan(0);
    expect((await call("GET", "/api/0/svc-apps/hooked/requests/?eventType=nope", acme.orgReadToken)).status).toBe(400);
    // Only the owner reads it: the organization where it is installed does not.
    expect((await call("GET", "/api/0/svc-apps/hooked/requests/", globex.allScopesToken)).status).toBe(404);
    expect((await call("GET", "/api/0/svc-apps/hooked/requests/", acme.eventReadToken)).status).toBe(403);
  });
  it("cuts the request and response bodies in the log to 1 KiB of UTF-8, never inside a character", async () => {
    const sent = new Map<string, string>();
    const verbose = await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          sent.set(String(req.headers["webhook-id"]), Buffer.concat(chunks).toString("utf8"));
          // 1 + 4 × 1000 bytes: a cut at byte 1024 would split the 256th emoji.
          res.writeHead(200).end(`a${"😀".repeat(1000)}`);
        });
      }),
    );
    try {
      await instance.faultline.api.apps.update("hooked", { webhookUrl: `${verbose.url}/verbose` });
      await captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id })(
        errorEvent({ fingerprint: ["verbose"], message: "é".repeat(700), extra: { blob: "m".repeat(3000) } }),
      );
      const entry = await waitFor(async () =>
        (
          (await call("GET", "/api/0/svc-apps/hooked/requests/?eventType=error.created", acme.orgReadToken))
            .body as Array<Record<string, string>>
        ).find((e) => e.webhookUrl === `${verbose.url}/verbose`),
      );
      const body = sent.get(String(entry.deliveryId)) ?? "";
      expect(body.length).toBeGreaterThan(3000);
      const logged = String(entry.requestBody);
      expect(Buffer.byteLength(logged)).toBeLessThanOrEqual(1024);
      expect(Buffer.byteLength(logged)).toBeGreaterThan(1020);
      expect(body.startsWith(logged)).toBe(true);
      expect(entry.responseBody).toBe(`a${"😀".repeat(255)}`);
    } finally {
      await instance.faultline.api.apps.update("hooked", { webhookUrl: `${receiver.url}/hooked` });
      await verbose.close();
    }
  });
  it("logs a response body with NUL bytes (U+FFFD in their place) instead of failing the log write — #13", async () => {
    const nul = await listen(createServer((_req, res) => res.writeHead(200).end("ok\u0000done")));
    try {
      await instance.faultline.api.apps.update("hooked", { webhookUrl: `${nul.url}/nul` });
      await captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id })(
        errorEvent({ fingerprint: ["nul-response"] }),
      );
      const entry = await waitFor(async () =>
        (
          (await call("GET", "/api/0/svc-apps/hooked/requests/?eventType=error.created", acme.orgReadToken))
            .body as Array<Record<string, string>>
        ).find((e) => e.webhookUrl === `${nul.url}/nul`),
      );
      expect(entry.responseBody).toBe("ok\uFFFDdone");
    } finally {
      await instance.faultline.api.apps.update("hooked", { webhookUrl: `${receiver.url}/hooked` });
      await nul.close();
    }
  });

  it("keeps the newest 100 requests and the newest 100 errors of each event type", async () => {
    const db = instance.faultline.container.resolve(tokens.Db);
    const { id: appId } = await db
      .selectFrom("apps")
      .select("id")
      .where("slug", "=", "hooked")
      .executeTakeFirstOrThrow();
    const start = Date.now() + 60_000;
    const row = (i: number, eventType: string, code: number) => ({
      app_id: appId,
      organization_id: Number(acme.organization.id),
      delivery_id: "00000000-0000-4000-8000-000000000001",
      attempt: 1,
      event_type: eventType,
      webhook_url: "http://example.test/",
      response_code: code,
      is_error: code >= 300 || code === 0,
      request_body: "{}",
      response_body: "",
      date_created: new Date(start + i * 1000),
    });
    // Oldest to newest: 120 issue.created errors, 5 comment.created timeouts, 130 successes.
    const rows = [
      ...Array.from({ length: 120 }, (_, i) => row(i, "issue.created", 500)),
      ...Array.from({ length: 5 }, (_, i) => row(200 + i, "comment.created", 0)),
      ...Array.from({ length: 130 }, (_, i) => row(300 + i, "issue.created", 200)),
    ];
    await db.insertInto("app_request_log").values(rows).execute();
    const entries = (await call("GET", "/api/0/svc-apps/hooked/requests/", acme.orgReadToken)).body as Array<{
      eventType: string;
      responseCode: number;
      date: string;
    }>;
    const count = (eventType: string, code: number) =>
      entries.filter((e) => e.eventType === eventType && e.responseCode === code).length;
    expect(count("issue.created", 200)).toBe(100);
    expect(count("issue.created", 500)).toBe(100);
    expect(count("comment.created", 0)).toBe(5);
    // The newest error of the older event types is still there.
    expect(count("installation.created", 400)).toBe(1);
    expect(entries[0]?.date).toBe(new Date(start + 429_000).toISOString());
  });
  it("walks every delivery exactly once through the cursors, ties on the creation time included", async () => {
    const db = instance.faultline.container.resolve(tokens.Db);
    const sameInstant = new Date();
    await db
      .insertInto("deliveries")
      .values(
        Array.from({ length: 5 }, (_, i) =>
          outboxRow({
            id: `00000000-0000-4000-8000-00000000010${i}`,
            organization_id: Number(acme.organization.id),
            status: "cancelled",
            next_attempt_at: sameInstant,
            date_created: sameInstant,
            date_finished: sameInstant,
          }),
        ),
      )
      .execute();
    const all = await list("acme", acme.orgReadToken);
    const walked: string[] = [];
    let next: string | undefined = `${server.url}/api/0/organizations/acme/deliveries/?per_page=2`;
    while (next) {
      const response: Response = await fetch(next, { headers: bearer(acme.orgReadToken) });
      walked.push(...((await response.json()) as DeliveryItem[]).map((d) => d.id));
      next = /<([^>]+)>; rel="next"; results="true"/.exec(response.headers.get("link") ?? "")?.[1];
    }
    expect(walked).toEqual(all.map((d) => d.id));
    expect(new Set(walked).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect((await list("acme", acme.orgReadToken, "?status=cancelled")).length).toBe(5);
  });
});
