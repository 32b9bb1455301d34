import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { bearer, inProcess, type RunningServer, serveFaultline } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";

describe("service hooks", () => {
  let instance: TestInstance;
  let strict: TestInstance;
  let server: RunningServer;
  let token: string;
  let strictToken: string;
  let organizationId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let capture: ReturnType<typeof captureFor>;
  const hooksPath = (project = "web") => `${server.url}/api/0/projects/acme/${project}/hooks/`;
  const post = (url: string, body: unknown, auth = token) =>
    fetch(url, {
      method: "POST",
      headers: { ...bearer(auth), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** A request through the real HTTP pipeline: a string body goes out verbatim (malformed JSON), anything else as JSON. */
  const send = (target: TestInstance, method: string, path: string, auth: string, body?: unknown) =>
    inProcess(target.faultline, auth)(method, path, body);
  const hookRows = (target: TestInstance) =>
    target.faultline.container
      .resolve(tokens.Db)
      .selectFrom("service_hooks")
      .select(["id", "url", "events", "status"])
      .orderBy("id")
      .execute();

  beforeAll(async () => {
    instance = await createTestInstance({ delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 } });
    strict = await createTestInstance({ announce: false, worker: false });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    organizationId = org.id;
    const owner = await api.users.create({ username: "owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    const project = await api.projects.create({
      organization: "acme",
      slug: "web",
      platform: "node",
      features: ["servicehooks"],
    });
    await api.projects.create({ organization: "acme", slug: "plain" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    receiver = await startReceiver();
    server = await serveFaultline(instance.faultline);
    // An instance with the default SSRF policy (private destinations refused) and no worker.
    await strict.faultline.api.organizations.create({ slug: "strict" });
    const strictUser = await strict.faultline.api.users.create({ username: "s" });
    await strict.faultline.api.members.add({ organization: "strict", user: strictUser.id, role: "owner" });
    await strict.faultline.api.projects.create({ organization: "strict", slug: "web", features: ["servicehooks"] });
    strictToken = (await strict.faultline.api.tokens.create({ user: strictUser.id, scopes: [...SCOPES] })).token;
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await instance?.close();
    await strict?.close();
  });

  it("creates a hook (201, 64-hex secret shown once) and reads it back without the secret", async () => {
    const created = await post(hooksPath(), { url: `${receiver.url}/hook`, events: ["event.created", "event.alert"] });
    expect(created.status).toBe(201);
    const hook = await created.json();
    expect(hook).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: `${receiver.url}/hook`,
      events: ["event.alert", "event.created"],
      status: "active",
    });
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(hook.dateCreated).toMatch(/\.\d{3}Z$/);
    const read = await (await fetch(`${hooksPath()}${hook.id}/`, { headers: bearer(token) })).json();
    expect(read.secret).toBeUndefined();
    const list = await (await fetch(hooksPath(), { headers: bearer(token) })).json();
    expect(list.map((h: { id: string }) => h.id)).toContain(hook.id);
    expect(list[0].secret).toBeUndefined();
  });

  it("refuses projects without the feature, unknown events and bad URLs", async () => {
    const gated = await post(hooksPath("plain"), { url: `${receiver.url}/x`, events: ["event.created"] });
    expect(gated.status).toBe(403);
    expect(await gated.json()).toEqual({ detail: "The servicehooks feature is not enabled for this project" });
    const badEvent = await post(hooksPath(), { url: `${receiver.url}/x`, events: ["event.created", "issue.exploded"] });
    expect(badEvent.status).toBe(400);
    expect((await badEvent.json()).errors.events).toEqual(["Invalid event name: issue.exploded"]);
    const badUrl = await post(hooksPath(), { url: "ftp://example.com/", events: ["event.created"] });
    expect(badUrl.status).toBe(400);
    expect((await badUrl.json()).errors.url[0]).toMatch(/http/);
  });

  it("refuses private destinations at creation unless private networks are allowed", async () => {
    for (const url of [
      "http://127.0.0.1:9/h",
      "http://10.0.0.1/h",
      "http://169.254.169.254/latest",
      "http://[::1]/h",
      "http://[::ffff:10.0.0.1]/h",
      "http://localhost/h",
    ]) {
      const response = await strict.faultline.handler(
        new Request("http://x/api/0/projects/strict/web/hooks/", {
          method: "POST",
          headers: { ...bearer(strictToken), "content-type": "application/json" },
          body: JSON.stringify({ url, events: ["event.created"] }),
        }),
      );
      expect(response.status, url).toBe(400);
      expect((await response.json()).errors.url[0], url).toMatch(/private/);
    }
  });

  it("delivers event.created for every ingested event, signed both ways over the exact bytes", async () => {
    const hook = await (await post(hooksPath(), { url: `${receiver.url}/signed`, events: ["event.created"] })).json();
    const { eventId } = await capture(errorEvent({ tags: { browser: "Firefox" }, fingerprint: ["hooked"] }));
    const [request] = (await receiver.until((all) => all.some((r) => r.path === "/signed"))).filter(
      (r) => r.path === "/signed",
    );
    if (!request) throw new Error("no delivery");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-svc-hook-guid"]).toBe(hook.id);
    expect(request.headers["x-svc-hook-event"]).toBe("event.created");
    expect(Number(request.headers["x-svc-hook-timestamp"])).toBeGreaterThan(1_700_000_000);
    expect(verifySignature(request.body, request.headers["x-svc-hook-signature"] as string, hook.secret)).toBe(true);
    expect(verifyStandardWebhook(request.body, request.headers as Record<string, string>, hook.secret)).toBe(true);
    expect(request.json).toMatchObject({
      id: request.headers["webhook-id"],
      project: "web",
      culprit: "handler(app.js)",
      url: expect.stringMatching(/\/api\/0\/organizations\/acme\/issues\/\d+\/$/),
      triggering_rules: [],
      event: {
        event_id: eventId,
        level: "error",
        platform: "node",
        datetime: expect.stringMatching(/T\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
    });
    expect((request.json.event as { tags: string[][] }).tags).toContainEqual(["browser", "Firefox"]);
  });

  it("delivers an event to its project's active hooks subscribed to event.created, and to no other hook", async () => {
    const { api } = instance.faultline;
    const db = instance.faultline.container.resolve(tokens.Db);
    const createHook = async (
      project: string,
      path: string,
      events: string[],
    ): Promise<{ id: string; secret: string }> => {
      const created = await post(hooksPath(project), { url: `${receiver.url}${path}`, events });
      expect(created.status, path).toBe(201);
      return created.json();
    };
    // Another project with hooks: its hook gets its own project's event (so it works), never web's.
    const otherProject = await api.projects.create({
      organization: "acme",
      slug: "other",
      name: "Other",
      features: ["servicehooks"],
    });
    const otherCapture = captureFor(instance.faultline, { id: otherProject.id, organizationId });
    const webHook = await createHook("web", "/subscribed", ["event.created"]);
    const alertOnlyHook = await createHook("web", "/alert-only", ["event.alert"]);
    const disabledHook = await createHook("web", "/disabled", ["event.created"]);
    const otherProjectHook = await createHook("other", "/other-project", ["event.created"]);
    const updated = await fetch(`${hooksPath()}${disabledHook.id}/`, {
      method: "PUT",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ isActive: false }),
    });
    expect((await updated.json()).status).toBe("disabled");

    const web = await capture(errorEvent({ fingerprint: ["quiet"] }));
    const other = await otherCapture(errorEvent({ fingerprint: ["other-project"] }));

    // The outbox is written with the event: what it holds for these hooks is all they will ever get.
    const hookIds = [webHook.id, alertOnlyHook.id, disabledHook.id, otherProjectHook.id];
    const outbox = () =>
      db
        .selectFrom("deliveries")
        .select(["id", "destination_id", "event_type", "body", "status"])
        .where("destination_id", "in", hookIds)
        .execute();
    const queued = await outbox();
    expect(
      queued
        .map((row) => [
          row.destination_id,
          row.event_type,
          (JSON.parse(row.body) as { event: { event_id: string } }).event.event_id,
        ])
        .sort(),
    ).toEqual(
      [
        [webHook.id, "event.created", web.eventId],
        [otherProjectHook.id, "event.created", other.eventId],
      ].sort(),
    );
    await waitFor(
      async () => (await outbox()).every((row) => row.status === "delivered"),
      10_000,
      "both deliveries delivered",
    );

    // What the receiver got, as the contract says: one request per delivery, the outbox's exact
    // bytes, signed with that hook's secret (and not another's).
    const arrivals = (path: string) => receiver.received.filter((request) => request.path === path);
    expect(arrivals("/alert-only")).toEqual([]);
    expect(arrivals("/disabled")).toEqual([]);
    const expected = [
      {
        path: "/subscribed",
        hook: webHook,
        otherHook: otherProjectHook,
        eventId: web.eventId,
        project: "web",
        projectName: "web",
      },
      {
        path: "/other-project",
        hook: otherProjectHook,
        otherHook: webHook,
        eventId: other.eventId,
        project: "other",
        projectName: "Other",
      },
    ];
    for (const { path, hook, otherHook, eventId, project, projectName } of expected) {
      const requests = arrivals(path);
      expect(requests, path).toHaveLength(1);
      const [request] = requests;
      if (!request) throw new Error(`nothing delivered to ${path}`);
      const delivery = queued.find((row) => row.destination_id === hook.id);
      expect(request.body, path).toBe(delivery?.body);
      expect(request.headers, path).toMatchObject({
        "content-type": "application/json",
        "user-agent": "faultline-webhooks/1",
        "x-svc-hook-guid": hook.id,
        "x-svc-hook-event": "event.created",
        "webhook-id": delivery?.id,
        "webhook-timestamp": request.headers["x-svc-hook-timestamp"],
      });
      expect(Math.abs(Number(request.headers["x-svc-hook-timestamp"]) - Date.now() / 1000), path).toBeLessThan(60);
      const signature = request.headers["x-svc-hook-signature"] as string;
      expect(verifySignature(request.body, signature, hook.secret), path).toBe(true);
      expect(verifyStandardWebhook(request.body, request.headers as Record<string, string>, hook.secret), path).toBe(
        true,
      );
      expect(verifySignature(request.body, signature, otherHook.secret), path).toBe(false);
      expect(request.json, path).toMatchObject({
        id: delivery?.id,
        project,
        project_name: projectName,
        culprit: "handler(app.js)",
        message: "x is undefined",
        url: expect.stringMatching(/\/api\/0\/organizations\/acme\/issues\/\d+\/$/),
        triggering_rules: [],
        event: { event_id: eventId, level: "error", platform: "node" },
      });
    }
  });

  it("updates and deletes hooks; deleting cancels pending deliveries; unknown ids are 404", async () => {
    const hook = await (await post(hooksPath(), { url: `${receiver.url}/gone`, events: ["event.created"] })).json();
    const renamed = await (
      await fetch(`${hooksPath()}${hook.id}/`, {
        method: "PUT",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify({ url: `${receiver.url}/moved`, events: ["event.alert"] }),
      })
    ).json();
    expect(renamed).toMatchObject({ url: `${receiver.url}/moved`, events: ["event.alert"] });
    expect((await fetch(`${hooksPath()}${hook.id}/`, { method: "DELETE", headers: bearer(token) })).status).toBe(204);
    expect((await fetch(`${hooksPath()}${hook.id}/`, { headers: bearer(token) })).status).toBe(404);
    expect((await fetch(`${hooksPath()}${"0".repeat(32)}/`, { headers: bearer(token) })).status).toBe(404);
    expect((await fetch(`${hooksPath()}not-a-guid/`, { headers: bearer(token) })).status).toBe(404);
  });

  it("answers bad create bodies with a 400 saying what is wrong, and writes nothing", async () => {
    const before = await hookRows(instance);
    const path = "/api/0/projects/acme/web/hooks/";
    const url = `${receiver.url}/never`;
    const malformed = await send(instance, "POST", path, token, '{"url": "http://x/", "events": [');
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/^Malformed JSON body: /);
    for (const raw of ["[1, 2]", '"text"', "42", "true"]) {
      const response = await send(instance, "POST", path, token, raw);
      expect(response.status, raw).toBe(400);
      expect(response.body.errors, raw).toEqual({
        body: [expect.stringMatching(/^Invalid input: expected object, received /)],
      });
      expect(response.body.detail, raw).toMatch(/^Invalid request: body: /);
    }
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ url: 5, events: ["event.created"] }, { url: ["Invalid input: expected string, received number"] }],
      [{ events: ["event.created"] }, { url: ["Invalid input: expected string, received undefined"] }],
      [{ url: "not a url", events: ["event.created"] }, { url: ["URL must be a valid URL"] }],
      [{ url, events: "event.created" }, { events: ["Invalid input: expected array, received string"] }],
      [{ url, events: [7] }, { "events.0": ["Invalid input: expected string, received number"] }],
      [{ url, events: [] }, { events: ["at least one event is required"] }],
      [{ url, events: ["event.created", "x"] }, { events: ["Invalid event name: x"] }],
    ];
    for (const [body, errors] of cases) {
      const response = await send(instance, "POST", path, token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors, JSON.stringify(body)).toEqual(errors);
      expect(response.body.detail, JSON.stringify(body)).toBe(
        `Invalid request: ${Object.keys(errors)[0]}: ${Object.values(errors)[0]?.[0]}`,
      );
    }
    expect(await hookRows(instance)).toEqual(before);
  });

  it("answers bad updates with a 400 saying what is wrong, and changes nothing", async () => {
    const created = await send(instance, "POST", "/api/0/projects/acme/web/hooks/", token, {
      url: `${receiver.url}/kept`,
      events: ["event.alert"],
    });
    expect(created.status).toBe(201);
    const path = `/api/0/projects/acme/web/hooks/${created.body.id}/`;
    const original = (await send(instance, "GET", path, token)).body;
    const before = await hookRows(instance);
    const malformed = await send(instance, "PUT", path, token, '{"isActive": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/^Malformed JSON body: /);
    const notAnObject = await send(instance, "PUT", path, token, "[1]");
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.body.errors).toEqual({ body: ["Invalid input: expected object, received array"] });
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ isActive: "yes" }, { isActive: ["Invalid input: expected boolean, received string"] }],
      [{ events: "x" }, { events: ["Invalid input: expected array, received string"] }],
      [{ events: ["event.created", "x"] }, { events: ["Invalid event name: x"] }],
      [{ url: "ftp://example.com/" }, { url: ["URL must be an http or https URL"] }],
      // A valid field next to an invalid one is not applied either.
      [
        { url: `${receiver.url}/moved`, isActive: "yes" },
        { isActive: ["Invalid input: expected boolean, received string"] },
      ],
      [{ events: ["event.created"], url: 42 }, { url: ["Invalid input: expected string, received number"] }],
    ];
    for (const [body, errors] of cases) {
      const response = await send(instance, "PUT", path, token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors, JSON.stringify(body)).toEqual(errors);
      expect(response.body.detail, JSON.stringify(body)).toMatch(/^Invalid request: /);
    }
    expect((await send(instance, "GET", path, token)).body).toEqual(original);
    expect(await hookRows(instance)).toEqual(before);
  });

  it("refuses a private URL on update (default policy) without applying the rest of the change", async () => {
    const created = await send(strict, "POST", "/api/0/projects/strict/web/hooks/", strictToken, {
      url: "https://93.184.215.14/hook",
      events: ["event.created"],
    });
    expect(created.status).toBe(201);
    const path = `/api/0/projects/strict/web/hooks/${created.body.id}/`;
    const before = await hookRows(strict);
    for (const url of ["http://10.0.0.1/h", "http://127.0.0.1:9/h", "http://[::ffff:169.254.169.254]/h"]) {
      const response = await send(strict, "PUT", path, strictToken, { url, events: ["event.alert"], isActive: false });
      expect(response.status, url).toBe(400);
      expect(Object.keys(response.body.errors), url).toEqual(["url"]);
      expect(response.body.errors.url[0], url).toMatch(/^URL resolves to a private or reserved address/);
    }
    expect(await hookRows(strict)).toEqual(before);
    expect((await send(strict, "GET", path, strictToken)).body).toMatchObject({
      url: "https://93.184.215.14/hook",
      events: ["event.created"],
      status: "active",
    });
  });

  it("answers a bad ?status=, page size or cursor on the list with a 400", async () => {
    const path = "/api/0/projects/acme/web/hooks/";
    const badStatus = await send(instance, "GET", `${path}?status=lost`, token);
    expect(badStatus.status).toBe(400);
    expect(badStatus.body).toEqual({
      detail: 'Invalid request: status: Invalid option: expected one of "active"|"disabled"',
      errors: { status: ['Invalid option: expected one of "active"|"disabled"'] },
    });
    for (const cursor of ["garbage", "1:2", "1:2:3", "a:0:0"]) {
      const response = await send(instance, "GET", `${path}?cursor=${cursor}`, token);
      expect(response.status, cursor).toBe(400);
      expect(response.body, cursor).toEqual({ detail: "Invalid cursor parameter." });
    }
    const badSize = await send(instance, "GET", `${path}?per_page=0`, token);
    expect(badSize.status).toBe(400);
    expect(Object.keys(badSize.body.errors)).toEqual(["per_page"]);
    const active = await send(instance, "GET", `${path}?status=active`, token);
    expect(active.status).toBe(200);
    expect(active.body.length).toBeGreaterThan(0);
    expect(active.body.every((hook: { status: string }) => hook.status === "active")).toBe(true);
  });

  it("disables a hook whose receiver answers 410 Gone; it then gets nothing more", async () => {
    const { api } = instance.faultline;
    const project = await api.projects.create({ organization: "acme", slug: "gone", features: ["servicehooks"] });
    const goneCapture = captureFor(instance.faultline, { id: project.id, organizationId });
    const gone = await startReceiver([410]);
    try {
      const hook = (
        await send(instance, "POST", "/api/0/projects/acme/gone/hooks/", token, {
          url: `${gone.url}/gone`,
          events: ["event.created"],
        })
      ).body;
      await goneCapture(errorEvent({ fingerprint: ["gone-1"] }));
      await gone.until((all) => all.length >= 1);
      const path = `/api/0/projects/acme/gone/hooks/${hook.id}/`;
      await waitFor(
        async () => (await send(instance, "GET", path, token)).body.status === "disabled",
        10_000,
        "the hook disabled",
      );
      const db = instance.faultline.container.resolve(tokens.Db);
      const rows = () =>
        db
          .selectFrom("deliveries")
          .select(["status", "attempts", "last_response_code"])
          .where("destination_id", "=", hook.id)
          .execute();
      expect(await rows()).toEqual([{ status: "failed", attempts: 1, last_response_code: 410 }]);
      expect(
        (await send(instance, "GET", "/api/0/projects/acme/gone/hooks/?status=disabled", token)).body.map(
          (h: { id: string }) => h.id,
        ),
      ).toEqual([hook.id]);
      expect((await send(instance, "GET", "/api/0/projects/acme/gone/hooks/?status=active", token)).body).toEqual([]);
      await goneCapture(errorEvent({ fingerprint: ["gone-2"] }));
      expect(await rows()).toHaveLength(1);
      expect(gone.received).toHaveLength(1);
    } finally {
      await gone.close();
    }
  });
});
