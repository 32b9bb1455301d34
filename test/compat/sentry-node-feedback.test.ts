import * as Sentry from "@sentry/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * The real @sentry/node SDK's `captureFeedback` against a live Faultline over HTTP: the feedback
 * envelope item is kept, linked to the event it names and its issue (docs/user-feedback.md).
 */
describe("the real @sentry/node SDK's captureFeedback against a live Faultline", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  const api = async (path: string) => {
    const response = await fetch(`${server.url}/api/0${path}`, { headers: bearer(seed.allScopesToken) });
    expect(response.status).toBe(200);
    return response.json();
  };

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    seed = await seedOrganization(instance.faultline, "acme");
    server = await serveFaultline(instance.faultline);
    const key = seed.project.keys[0]?.public as string;
    Sentry.init({
      dsn: `${server.url.replace("://", `://${key}@`)}/${seed.project.id}`,
      defaultIntegrations: false,
      environment: "compat",
    });
  });
  afterAll(async () => {
    await Sentry.close(500);
    await server?.close();
    await instance?.close();
  });

  it("keeps the feedback with its name, email and message, on the issue of the event it names", async () => {
    const eventId = Sentry.captureException(new TypeError("feedback compat boom"));
    expect(await Sentry.flush(5000)).toBe(true);
    await instance.faultline.worker.runDue("ingest.digest");
    const feedbackId = Sentry.captureFeedback({
      message: "It crashed when I clicked <Save>",
      email: "jane@example.com",
      name: "Jane",
      associatedEventId: eventId,
    });
    expect(await Sentry.flush(5000)).toBe(true);

    const [issue] = (await api(`/organizations/acme/issues/?query=${eventId}`)) as Array<{ id: string }>;
    const feedback = (await api("/projects/acme/web/user-feedback/")) as Array<Record<string, unknown>>;
    expect(feedback).toEqual([
      expect.objectContaining({
        eventID: eventId,
        name: "Jane",
        email: "jane@example.com",
        comments: "It crashed when I clicked <Save>",
        event: { id: eventId, eventID: eventId },
        issue: expect.objectContaining({ id: issue?.id, title: "TypeError: feedback compat boom" }),
        kind: "feedback",
        environment: "compat",
      }),
    ]);
    expect(typeof feedbackId).toBe("string");
    const detail = (await api(`/organizations/acme/issues/${issue?.id}/`)) as { userReportCount: number };
    expect(detail.userReportCount).toBe(1);
  });
});
