import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature } from "../../src/verify.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * User feedback end to end (docs/user-feedback.md): the SDKs' `feedback` and `user_report`
 * envelope items through the real envelope endpoint, Sentry's legacy POST with a DSN or a token,
 * the lists, the issues' `userReportCount`, the `feedback` app webhook to a real receiver, and
 * what no other organization sees.
 */
const MINUTE = 60_000;
let offset = 0;
let instance: TestInstance;
let server: RunningServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let acme: Awaited<ReturnType<typeof seedOrganization>>;
let globex: Awaited<ReturnType<typeof seedOrganization>>;
let appSecret: string;
const call = httpCaller(() => server.url);
const newId = () => randomUUID().replaceAll("-", "");
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** Posts an envelope of items (header, payload) for acme's project with its DSN key; payloads may be bytes. */
async function envelope(items: Array<[Record<string, unknown>, string | Uint8Array]>, eventId = newId()) {
  const parts: Uint8Array[] = [];
  const text = (value: string) => new TextEncoder().encode(value);
  parts.push(text(`${JSON.stringify({ event_id: eventId })}\n`));
  for (const [header, payload] of items) {
    const bytes = typeof payload === "string" ? text(payload) : payload;
    parts.push(text(`${JSON.stringify({ ...header, length: bytes.byteLength })}\n`), bytes, text("\n"));
  }
  const key = acme.project.keys[0]?.public as string;
  const response = await fetch(`${server.url}/api/${acme.project.id}/envelope/?sentry_key=${key}`, {
    method: "POST",
    body: Buffer.concat(parts),
  });
  expect(response.status).toBe(200);
}

const errorItem = (eventId: string, message: string): [Record<string, unknown>, string] => [
  { type: "event" },
  JSON.stringify(errorEvent({ event_id: eventId, message, exception: undefined })),
];

/** The JS SDK's feedback item: an event whose `contexts.feedback` holds the report. */
const feedbackItem = (feedback: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  [
    { type: "feedback" },
    JSON.stringify({
      event_id: newId(),
      type: "feedback",
      platform: "javascript",
      environment: "production",
      contexts: { feedback },
      ...extra,
    }),
  ] as [Record<string, unknown>, string];

const feedbackList = (token = acme.allScopesToken, slug = "acme") =>
  call("GET", `/api/0/projects/${slug}/web/user-feedback/`, token);

async function issueOf(eventId: string): Promise<string> {
  const { body } = await call("GET", `/api/0/organizations/acme/issues/?query=${eventId}`, acme.allScopesToken);
  return (body as Array<{ id: string }>)[0]?.id as string;
}

beforeAll(async () => {
  receiver = await startReceiver();
  instance = await createTestInstance({
    worker: false,
    logger: silentLogger,
    clock: { now: () => new Date(Date.now() + offset) },
    delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 },
  });
  acme = await seedOrganization(instance.faultline, "acme");
  globex = await seedOrganization(instance.faultline, "globex");
  const app = await instance.faultline.api.apps.create({
    organization: "acme",
    name: "Feedback bot",
    slug: "feedback-bot",
    isInternal: true,
    webhookUrl: `${receiver.url}/feedback`,
    events: ["feedback"],
    scopes: [],
  });
  appSecret = app.clientSecret as string;
  server = await serveFaultline(instance.faultline);
});

afterAll(async () => {
  await server?.close();
  await instance?.close();
  await receiver?.close();
});

describe("user feedback", () => {
  const crashId = newId();
  let issueId: string;

  it("keeps the widget's feedback with its screenshot and a user report from envelopes, linked to the event's issue", async () => {
    await envelope([errorItem(crashId, "checkout crashed")], crashId);
    await digestQueued(instance.faultline);
    issueId = await issueOf(crashId);
    await envelope([
      feedbackItem(
        {
          message: "The <b>pay</b> button does nothing",
          contact_email: "jane@example.com",
          name: "Jane",
          url: "https://shop.example.com/checkout",
          source: "widget",
          associated_event_id: crashId,
        },
        { user: { id: "42", email: "jane@example.com", ip_address: "10.0.0.1" } },
      ),
      [{ type: "attachment", filename: "screenshot.png", content_type: "image/png" }, PNG],
      [
        { type: "user_report" },
        JSON.stringify({ event_id: crashId, name: "Joe", email: "joe@example.com", comments: "Same here" }),
      ],
      [{ type: "feedback" }, '{"contexts": {}}'],
      [{ type: "user_report" }, "not json"],
    ]);

    const { status, body, headers } = await feedbackList();
    expect(status).toBe(200);
    expect(headers.get("link")).toContain('rel="next"; results="false"');
    const [report, feedback] = body as Array<Record<string, unknown>>;
    const issue = {
      id: issueId,
      shortId: "WEB-1",
      title: "checkout crashed",
      culprit: expect.any(String),
      level: "error",
      status: "unresolved",
      project: { id: String(acme.project.id), slug: "web" },
    };
    expect(body).toHaveLength(2);
    expect(report).toEqual({
      id: expect.stringMatching(/^\d+$/),
      eventID: crashId,
      name: "Joe",
      email: "joe@example.com",
      comments: "Same here",
      dateCreated: expect.stringMatching(/Z$/),
      user: null,
      event: { id: crashId, eventID: crashId },
      issue,
      kind: "user_report",
      url: null,
      source: null,
      environment: null,
      release: null,
      attachments: [],
    });
    expect(feedback).toMatchObject({
      eventID: crashId,
      name: "Jane",
      email: "jane@example.com",
      comments: "The <b>pay</b> button does nothing",
      user: { id: "42", username: null, email: "jane@example.com", name: null, ipAddress: "10.0.0.1" },
      event: { id: crashId, eventID: crashId },
      issue,
      kind: "feedback",
      url: "https://shop.example.com/checkout",
      source: "widget",
      environment: "production",
      attachments: [{ id: expect.any(String), name: "screenshot.png", mimetype: "image/png", size: PNG.byteLength }],
    });

    const attachment = (feedback?.attachments as Array<{ id: string }>)[0]?.id;
    const screenshot = await fetch(
      `${server.url}/api/0/projects/acme/web/user-feedback/${feedback?.id}/attachments/${attachment}/`,
      { headers: bearer(acme.allScopesToken) },
    );
    expect(screenshot.status).toBe(200);
    expect(screenshot.headers.get("content-type")).toBe("image/png");
    expect(screenshot.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await screenshot.arrayBuffer())).toEqual(PNG);

    // The two items that do not parse are counted invalid; the envelope was still accepted.
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const outcomes = await instance.faultline.container
      .resolve(tokens.Db)
      .selectFrom("ingest_outcomes")
      .select(["outcome", "reason", "quantity"])
      .where("category", "=", "feedback")
      .orderBy("outcome")
      .execute();
    expect(outcomes.map((row) => ({ ...row, quantity: Number(row.quantity) }))).toEqual([
      { outcome: "accepted", reason: "", quantity: 2 },
      { outcome: "invalid", reason: "payload", quantity: 2 },
    ]);
  });

  it("counts the reports on the issue list and detail, and lists them per issue (legacy path too)", async () => {
    const list = await call("GET", "/api/0/organizations/acme/issues/?query=", acme.allScopesToken);
    const listed = (list.body as Array<{ id: string; userReportCount: number }>).find((item) => item.id === issueId);
    expect(listed?.userReportCount).toBe(2);
    const detail = await call("GET", `/api/0/organizations/acme/issues/${issueId}/`, acme.allScopesToken);
    expect(detail.body.userReportCount).toBe(2);

    const reports = await call("GET", `/api/0/organizations/acme/issues/${issueId}/user-reports/`, acme.allScopesToken);
    expect(reports.status).toBe(200);
    expect(reports.body.map((r: { comments: string }) => r.comments)).toEqual([
      "Same here",
      "The <b>pay</b> button does nothing",
    ]);
    const paged = await call("GET", `/api/0/issues/${issueId}/user-reports/?per_page=1`, acme.allScopesToken);
    expect(paged.body.map((r: { comments: string }) => r.comments)).toEqual(["Same here"]);
    const next = /rel="next"; results="true"; cursor="([^"]+)"/.exec(paged.headers.get("link") ?? "")?.[1] as string;
    const second = await call(
      "GET",
      `/api/0/issues/${issueId}/user-reports/?per_page=1&cursor=${encodeURIComponent(next)}`,
      acme.allScopesToken,
    );
    expect(second.body.map((r: { comments: string }) => r.comments)).toEqual(["The <b>pay</b> button does nothing"]);
  });

  it("links a report that came before its event once the event is stored", async () => {
    const lateId = newId();
    // The feedback is kept while the event still waits in the ingest queue.
    await envelope([errorItem(lateId, "late event"), feedbackItem({ message: "early", associated_event_id: lateId })]);
    const early = (await feedbackList()).body[0];
    expect(early).toMatchObject({ comments: "early", eventID: lateId, issue: null });
    await digestQueued(instance.faultline);
    await instance.faultline.worker.runDue("user-feedback.link");
    const linked = (await feedbackList()).body[0];
    expect(linked.issue?.id).toBe(await issueOf(lateId));
  });

  it("takes Sentry's legacy POST with the project's DSN or a token; a second report of an event replaces it for five minutes", async () => {
    const key = acme.project.keys[0]?.public as string;
    const dsn = `http://${key}@127.0.0.1/${acme.project.id}`;
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${server.url}/api/0/projects/acme/web/user-feedback/`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const eventId = newId();
    const byDsn = await post(
      { Authorization: `DSN ${dsn}` },
      { event_id: eventId, name: "Ann", email: "ann@example.com", comments: "first" },
    );
    expect(byDsn.status).toBe(200);
    expect(await byDsn.text()).toBe("");

    const byToken = await post(bearer(acme.allScopesToken), {
      event_id: eventId,
      name: "Ann",
      email: "ann@example.com",
      comments: "corrected",
    });
    expect(byToken.status).toBe(200);
    const replaced = await byToken.json();
    expect(replaced).toMatchObject({ eventID: eventId, comments: "corrected", issue: null, kind: "user_report" });
    expect((await feedbackList()).body.filter((r: { eventID: string }) => r.eventID === eventId)).toHaveLength(1);

    offset += 6 * MINUTE;
    const late = await post(bearer(acme.allScopesToken), { event_id: eventId, comments: "again" });
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual({ detail: "Feedback for this event cannot be modified." });

    // A DSN opens its own project only; it reads nothing; a bad body says what is wrong.
    const other = await instance.faultline.api.projects.create({ organization: "acme", slug: "other" });
    const otherDsn = `http://${other.keys[0]?.public}@127.0.0.1/${other.id}`;
    expect((await post({ Authorization: `DSN ${otherDsn}` }, { event_id: newId(), comments: "x" })).status).toBe(400);
    const globexDsn = `http://${globex.project.keys[0]?.public}@127.0.0.1/${globex.project.id}`;
    expect((await post({ Authorization: `DSN ${globexDsn}` }, { event_id: newId(), comments: "x" })).status).toBe(404);
    expect((await post({ Authorization: "DSN not-a-dsn" }, { event_id: newId(), comments: "x" })).status).toBe(401);
    const read = await fetch(`${server.url}/api/0/projects/acme/web/user-feedback/`, {
      headers: { Authorization: `DSN ${dsn}` },
    });
    expect(read.status).toBe(401);
    const bad = await post(bearer(acme.allScopesToken), { event_id: "nope", email: "not an email", comments: " " });
    expect(bad.status).toBe(400);
    expect(Object.keys((await bad.json()).errors).sort()).toEqual(["comments", "email", "event_id"]);
  });

  it("cuts oversized text and scrubs secrets from the message", async () => {
    await envelope([
      feedbackItem({
        message: `card 4111 1111 1111 1111 ${"x".repeat(5000)}`,
        name: "n".repeat(300),
        contact_email: `${"e".repeat(100)}@example.com`,
      }),
    ]);
    const [stored] = (await feedbackList()).body as Array<{ comments: string; name: string; email: string }>;
    expect(stored?.name).toBe("n".repeat(128));
    expect(stored?.email).toHaveLength(75);
    // Cut to 4096 characters, then the card number scrubbed.
    expect(stored?.comments).toBe(`card [Filtered] ${"x".repeat(4096 - "card 4111 1111 1111 1111 ".length)}`);
  });

  it("sends feedback.created to the app subscribed to feedback, signed", async () => {
    await instance.faultline.worker.runDue("delivery.send");
    const requests = await receiver.until((all) => all.length >= 5);
    const first = requests.find(
      (r) => (r.json.data as { feedback: { comments: string } }).feedback.comments === "Same here",
    );
    expect(first?.headers["svc-hook-resource"]).toBe("feedback");
    expect(verifySignature(first?.body ?? "", first?.headers["svc-hook-signature"] as string, appSecret)).toBe(true);
    expect(first?.json).toMatchObject({
      action: "created",
      data: {
        feedback: {
          kind: "user_report",
          eventID: crashId,
          issueId,
          name: "Joe",
          email: "joe@example.com",
          comments: "Same here",
          project: { id: String(acme.project.id), slug: "web" },
        },
      },
    });
  });

  it("shows nothing of one organization's feedback to another", async () => {
    expect((await feedbackList(globex.allScopesToken)).status).toBe(404);
    expect((await feedbackList(globex.allScopesToken, "globex")).body).toEqual([]);
    const reports = await call(
      "GET",
      `/api/0/organizations/globex/issues/${issueId}/user-reports/`,
      globex.allScopesToken,
    );
    expect(reports.status).toBe(404);
    expect((await call("GET", `/api/0/issues/${issueId}/user-reports/`, globex.allScopesToken)).status).toBe(404);
    const feedback = (await feedbackList()).body.find((r: { attachments: unknown[] }) => r.attachments.length > 0);
    const path = `/user-feedback/${feedback.id}/attachments/${feedback.attachments[0].id}/`;
    expect((await call("GET", `/api/0/projects/globex/web${path}`, globex.allScopesToken)).status).toBe(404);
  });
});
