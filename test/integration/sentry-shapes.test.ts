import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Fields of Sentry's issue and event objects that Sentry's tools read and that no other suite
 * covers (docs/sentry-compatibility.md, "Response shapes"): the issue's `logger` and the
 * `message` entry of an event sent with a plain message.
 */
describe("Sentry's issue and event fields", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;
  const call = httpCaller(() => server.url);
  const ids = { logged: "", silent: "", message: "" };

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    const seeded = await seedOrganization(instance.faultline, "acme");
    token = seeded.allScopesToken;
    const capture = captureFor(instance.faultline, { id: seeded.project.id, organizationId: seeded.organization.id });
    const eventId = (n: number) => n.toString(16).padStart(32, "0");
    // The issue keeps its first event's logger (as Sentry's group does), trimmed.
    await capture({ ...errorEvent({ logger: "  billing.charge " }), event_id: eventId(1), fingerprint: ["logged"] });
    await capture({ ...errorEvent({ logger: "later.logger" }), event_id: eventId(2), fingerprint: ["logged"] });
    await capture({ ...errorEvent({ logger: "" }), event_id: eventId(3), fingerprint: ["silent"] });
    // What the Python SDK's capture_message sends: the message as a plain string.
    await capture({ event_id: eventId(4), message: "Disk almost full", level: "info", platform: "python" });
    // A template without parameters is its own formatted text.
    await capture({ event_id: eventId(5), logentry: { message: "Cache cleared" }, level: "info" });
    server = await serveFaultline(instance.faultline);
    const issueOf = async (n: number) =>
      (await call("GET", `/api/0/projects/acme/web/events/${eventId(n)}/`, token)).body.groupID as string;
    ids.logged = await issueOf(1);
    ids.silent = await issueOf(3);
    ids.message = eventId(4);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("an issue's logger is its first event's (string or null), in the detail and the list", async () => {
    expect((await call("GET", `/api/0/organizations/acme/issues/${ids.logged}/`, token)).body.logger).toBe(
      "billing.charge",
    );
    expect((await call("GET", `/api/0/organizations/acme/issues/${ids.silent}/`, token)).body.logger).toBeNull();
    const list = (await call("GET", "/api/0/organizations/acme/issues/?query=", token)).body as Array<{
      id: string;
      logger: string | null;
    }>;
    expect(Object.fromEntries(list.map((item) => [item.id, item.logger]))).toMatchObject({
      [ids.logged]: "billing.charge",
      [ids.silent]: null,
    });
  });

  it("a plain message becomes a message entry with data.formatted", async () => {
    const event = (await call("GET", `/api/0/projects/acme/web/events/${ids.message}/`, token)).body;
    expect(event.entries).toEqual([
      { type: "message", data: { formatted: "Disk almost full", message: null, params: [] } },
    ]);
    const template = (await call("GET", `/api/0/projects/acme/web/events/${"5".padStart(32, "0")}/`, token)).body;
    expect(template.entries).toEqual([
      { type: "message", data: { formatted: "Cache cleared", message: null, params: [] } },
    ]);
  });
});
