import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Public sharing (docs/issues.md, "Public sharing"): `{"isPublic": true}` gives an issue a share
 * id, and `GET /api/0/shared/issues/{share_id}/` shows it to anyone, without its secrets and
 * personal data; making it private again answers 404 at once. Only the issue's organization can
 * toggle it.
 */

/** Values planted where an event carries secrets and personal data; none may reach the shared view. */
const PLANTED = {
  userId: "planted-user-id-4411",
  email: "planted.person@example.test",
  ip: "198.51.100.77",
  username: "planted_username_4412",
  header: "planted-header-value-4413",
  cookie: "planted-cookie-value-4414",
  query: "planted-query-value-4415",
  env: "planted-env-value-4416",
  body: "planted-body-value-4417",
  extra: "planted-extra-value-4418",
  frameVar: "planted-frame-var-4419",
  context: "planted-context-value-4420",
  tag: "planted-tag-value-4421",
  breadcrumb: "planted-breadcrumb-4422",
};

function plantedEvent(eventId: string) {
  return {
    event_id: eventId,
    platform: "node",
    level: "error",
    user: { id: PLANTED.userId, email: PLANTED.email, ip_address: PLANTED.ip, username: PLANTED.username },
    request: {
      method: "POST",
      url: `https://shop.test/checkout?coupon=${PLANTED.query}`,
      headers: { "X-Custom-Header": PLANTED.header, Cookie: `basket=${PLANTED.cookie}` },
      cookies: { basket: PLANTED.cookie },
      query_string: `coupon=${PLANTED.query}`,
      env: { DEPLOY_NOTE: PLANTED.env },
      data: { comment: PLANTED.body },
    },
    extra: { note: PLANTED.extra },
    contexts: { cart: { note: PLANTED.context } },
    tags: { customer: PLANTED.tag, user: PLANTED.email, ip: PLANTED.ip },
    breadcrumbs: { values: [{ message: PLANTED.breadcrumb, timestamp: 1_700_000_000 }] },
    exception: {
      values: [
        {
          type: "CheckoutError",
          value: "basket could not be priced",
          stacktrace: {
            frames: [
              {
                filename: "checkout.js",
                abs_path: `https://shop.test/static/checkout.js?v=${PLANTED.query}`,
                function: "priceBasket",
                lineno: 12,
                context_line: "  throw new CheckoutError('basket could not be priced');",
                pre_context: ["function priceBasket(basket) {"],
                post_context: ["}"],
                in_app: true,
                vars: { basketNote: PLANTED.frameVar },
              },
            ],
          },
        },
      ],
    },
  };
}

describe("sharing an issue publicly", { timeout: 60_000 }, () => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  let other: Awaited<ReturnType<typeof seedOrganization>>;
  let issueId: string;
  let eventId: string;
  const call = httpCaller(() => server.url);
  const issuePath = () => `/api/0/organizations/acme/issues/${issueId}/`;
  const shared = (shareId: string) => fetch(`${server.url}/api/0/shared/issues/${shareId}/`);

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    seed = await seedOrganization(instance.faultline);
    other = await seedOrganization(instance.faultline, "other");
    server = await serveFaultline(instance.faultline);
    eventId = randomUUID().replaceAll("-", "");
    const key = seed.project.keys[0]?.public as string;
    const sent = await fetch(`${server.url}/api/${seed.project.id}/store/?sentry_key=${key}`, {
      method: "POST",
      body: JSON.stringify(plantedEvent(eventId)),
    });
    expect(sent.status).toBe(200);
    await digestQueued(instance.faultline);
    const stored = await call("GET", `/api/0/projects/acme/web/events/${eventId}/`, seed.allScopesToken);
    issueId = (stored.body as { groupID: string }).groupID;
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("is private at first: no share id, and the stored event does hold every planted value", async () => {
    const issue = await call("GET", issuePath(), seed.allScopesToken);
    expect(issue.body).toMatchObject({ isPublic: false, shareId: null });
    // The planted values were kept by ingest (scrubbing left them): the shared view below has to leave them out itself.
    const event = await fetch(`${server.url}/api/0/projects/acme/web/events/${eventId}/json/`, {
      headers: { Authorization: `Bearer ${seed.allScopesToken}` },
    });
    const text = await event.text();
    expect(Object.values(PLANTED).filter((value) => !text.includes(value))).toEqual([]);
  });

  it("shares: anyone reads the issue by its share id, with no secret or personal data in the answer", async () => {
    const made = await call("PUT", issuePath(), seed.allScopesToken, { isPublic: true });
    expect(made.status).toBe(200);
    const shareId = (made.body as { shareId: string }).shareId;
    expect(made.body).toMatchObject({ isPublic: true, shareId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect((await call("GET", issuePath(), seed.allScopesToken)).body).toMatchObject({ isPublic: true, shareId });

    const response = await shared(shareId);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    expect(Object.values(PLANTED).filter((value) => text.includes(value))).toEqual([]);
    const body = JSON.parse(text);
    expect(body).toMatchObject({
      id: issueId,
      shareId,
      isPublic: true,
      shortId: "WEB-1",
      title: "CheckoutError: basket could not be priced",
      culprit: expect.any(String),
      level: "error",
      status: "unresolved",
      permalink: expect.stringContaining(`/issues/${issueId}/`),
      project: { slug: "web", name: expect.any(String), organization: { slug: "acme", name: "acme Inc" } },
    });
    expect(body.latestEvent.eventID).toBe(eventId);
    expect(body.latestEvent.entries).toEqual([
      {
        type: "exception",
        data: {
          values: [
            {
              type: "CheckoutError",
              value: "basket could not be priced",
              module: null,
              mechanism: null,
              stacktrace: {
                frames: [
                  {
                    filename: "checkout.js",
                    absPath: "https://shop.test/static/checkout.js",
                    module: null,
                    function: "priceBasket",
                    lineNo: 12,
                    colNo: null,
                    inApp: true,
                    context: [
                      [11, "function priceBasket(basket) {"],
                      [12, "  throw new CheckoutError('basket could not be priced');"],
                      [13, "}"],
                    ],
                  },
                ],
              },
            },
          ],
        },
      },
      { type: "request", data: { method: "POST", url: "https://shop.test/checkout" } },
    ]);
    for (const hidden of ["assignedTo", "assignee", "user", "tags", "contexts", "extra", "activity"]) {
      expect(body).not.toHaveProperty(hidden);
      expect(body.latestEvent).not.toHaveProperty(hidden);
    }
  });

  it("another organization's token can neither share nor revoke the issue", async () => {
    const { shareId } = (await call("GET", issuePath(), seed.allScopesToken)).body as { shareId: string };
    for (const isPublic of [false, true]) {
      const attempt = await call("PUT", issuePath(), other.allScopesToken, { isPublic });
      expect(attempt.status).toBe(404);
    }
    expect((await shared(shareId)).status).toBe(200);
  });

  it("revoking answers 404 at once; sharing again makes a new id, and the old one stays dead", async () => {
    const { shareId } = (await call("GET", issuePath(), seed.allScopesToken)).body as { shareId: string };
    expect((await shared(shareId)).status).toBe(200);
    const revoked = await call("PUT", issuePath(), seed.allScopesToken, { isPublic: false });
    expect(revoked.body).toMatchObject({ isPublic: false, shareId: null });
    expect((await shared(shareId)).status).toBe(404);

    const again = await call("PUT", issuePath(), seed.allScopesToken, { isPublic: true });
    const renewed = (again.body as { shareId: string }).shareId;
    expect(renewed).not.toBe(shareId);
    expect((await shared(renewed)).status).toBe(200);
    expect((await shared(shareId)).status).toBe(404);
    for (const malformed of ["not-a-share-id", renewed.toUpperCase(), `${renewed}0`])
      expect((await shared(malformed)).status).toBe(404);
  });
});
