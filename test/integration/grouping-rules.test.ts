import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * A project's fingerprint rules and stack trace rules (docs/grouping.md) over real HTTP: set
 * through the project `PUT` (a bad line is a 400 naming it, and nothing is saved), applied to
 * events sent to the envelope endpoint (queued ingest, hashed at accept in a thread, regrouped
 * where the digest stores them), and shown on the hashes.
 */

type Json = Record<string, unknown>;

let instance: TestInstance;
let server: RunningServer;
let acme: Awaited<ReturnType<typeof seedOrganization>>;
let dsnKey: string;
const call = httpCaller(() => server.url);

beforeAll(async () => {
  instance = await createTestInstance({ worker: false });
  acme = await seedOrganization(instance.faultline, "acme");
  dsnKey = acme.project.keys[0]?.public as string;
  server = await serveFaultline(instance.faultline);
});
afterAll(async () => {
  await server?.close();
  await instance?.close();
});

const putProject = (body: Json) => call("PUT", "/api/0/projects/acme/web/", acme.allScopesToken, body);

/** Sends events in one envelope each, digests, and answers each stored event (its JSON, with `groupID`). */
async function sendEvents(...events: Json[]): Promise<Json[]> {
  const ids: string[] = [];
  for (const event of events) {
    const eventId = randomUUID().replaceAll("-", "");
    const body = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({ ...event, event_id: eventId }),
    ];
    const response = await fetch(`${server.url}/api/${acme.project.id}/envelope/?sentry_key=${dsnKey}`, {
      method: "POST",
      body: body.join("\n"),
    });
    expect(response.status).toBe(200);
    ids.push(eventId);
  }
  await digestQueued(instance.faultline);
  const stored: Json[] = [];
  for (const id of ids) {
    const { status, body } = await call("GET", `/api/0/projects/acme/web/events/${id}/`, acme.allScopesToken);
    expect(status).toBe(200);
    stored.push(body);
  }
  return stored;
}

/** Sends events and answers each one's issue id. */
const send = async (...events: Json[]) => (await sendEvents(...events)).map((event) => event.groupID as string);

const frame = (module: string, fn: string, inApp = true) => ({ module, function: fn, lineno: 1, in_app: inApp });
const error = (type: string, value: string, frames: Json[], extra: Json = {}) => ({
  platform: "python",
  level: "error",
  exception: { values: [{ type, value, stacktrace: { frames } }] },
  ...extra,
});

const FINGERPRINTING = [
  "# one issue whatever the host",
  "error.type:DatabaseUnavailable -> system-down",
  'message:"*timeout*" -> timeouts, {{ transaction }}',
].join("\n");

describe("grouping rules", () => {
  it("refuses a bad line with a 400 naming it, and saves nothing", async () => {
    const bad = await putProject({
      fingerprintingRules: `${FINGERPRINTING}\nerror.type:X -> {{ nope }}`,
      groupingEnhancements: "stack.function:assert* -group",
    });
    expect(bad.status).toBe(400);
    const why = 'line 4: unknown variable "{{ nope }}" in the fingerprint (in "error.type:X -> {{ nope }}")';
    expect(bad.body).toEqual({
      detail: `Invalid request: fingerprintingRules: ${why}`,
      errors: { fingerprintingRules: [why] },
    });
    const detail = await call("GET", "/api/0/projects/acme/web/", acme.allScopesToken);
    expect(detail.body).toMatchObject({ fingerprintingRules: "", groupingEnhancements: "" });
  });

  it("applies the rules to the next events and shows the matched rule on the hashes", async () => {
    const saved = await putProject({
      fingerprintingRules: FINGERPRINTING,
      groupingEnhancements: "stack.function:assert* -group\nstack.module:vendor/* -app",
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      fingerprintingRules: FINGERPRINTING,
      groupingEnhancements: "stack.function:assert* -group\nstack.module:vendor/* -app",
    });

    const frames = [frame("app.db", "connect")];
    const [down1, down2] = await send(
      error("DatabaseUnavailable", "primary db-1 unreachable", frames),
      error("DatabaseUnavailable", "replica db-7 unreachable", [frame("app.jobs", "run")]),
    );
    expect(down1).toBe(down2);

    const timeout = (transaction: string, text: string) => ({ message: text, transaction, level: "error" });
    const [checkout1, checkout2, search] = await send(
      timeout("/checkout", "upstream timeout after 30s"),
      timeout("/checkout", "db timeout after 5s"),
      timeout("/search", "db timeout after 5s"),
    );
    expect(checkout1).toBe(checkout2);
    expect(search).not.toBe(checkout1);

    const assertion = (fn: string) =>
      error("AssertionError", "failed", [frame("app.main", "main"), frame("app.t", fn)]);
    const [equal, isTrue] = await send(assertion("assertEqual"), assertion("assertTrue"));
    expect(equal).toBe(isTrue);

    const hashes = await call("GET", `/api/0/organizations/acme/issues/${down1}/hashes/`, acme.allScopesToken);
    expect(hashes.status).toBe(200);
    expect(hashes.body).toHaveLength(1);
    expect(hashes.body[0].groupingInfo).toEqual({
      type: "custom_fingerprint",
      description: "custom server fingerprint",
      matchedRule: "error.type:DatabaseUnavailable -> system-down",
      values: ["system-down"],
    });
    const searchHashes = await call("GET", `/api/0/organizations/acme/issues/${search}/hashes/`, acme.allScopesToken);
    expect(searchHashes.body[0].groupingInfo).toMatchObject({
      matchedRule: "message:*timeout* -> timeouts, {{ transaction }}",
      values: ["timeouts", "/search"],
    });
    const assertHashes = await call("GET", `/api/0/organizations/acme/issues/${equal}/hashes/`, acme.allScopesToken);
    expect(assertHashes.body[0].groupingInfo).toEqual({
      type: "default",
      description: "default grouping",
      matchedRule: null,
      values: null,
    });
  });

  it("flips in-app with -app: the stored frame and the culprit follow", async () => {
    const [event] = await sendEvents(
      error("KeyError", "k", [frame("app.main", "main"), frame("vendor/payments", "pay")]),
    );
    const [entry] = event!.entries as Array<{ data: { values: Array<{ stacktrace: { frames: Json[] } }> } }>;
    const stored = entry!.data.values[0]!.stacktrace.frames;
    expect(stored.map((f: Json) => [f.module, f.inApp])).toEqual([
      ["app.main", true],
      ["vendor/payments", false],
    ]);
    expect(event!.culprit).toBe("app.main in main");
  });

  it("a change of rules applies to the next events", async () => {
    const [before] = await send(error("DatabaseUnavailable", "x", [frame("app.db", "connect")]));
    expect((await putProject({ fingerprintingRules: "error.type:DatabaseUnavailable -> db-down-v2" })).status).toBe(
      200,
    );
    const [after1, after2] = await send(
      error("DatabaseUnavailable", "y", [frame("app.db", "connect")]),
      error("DatabaseUnavailable", "z", [frame("app.other", "go")]),
    );
    expect(after1).toBe(after2);
    expect(after1).not.toBe(before);
    // Cleared: the default grouping again (the two stacks differ).
    expect((await putProject({ fingerprintingRules: null })).status).toBe(200);
    const [plain1, plain2] = await send(
      error("DatabaseUnavailable", "y", [frame("app.db", "connect")]),
      error("DatabaseUnavailable", "z", [frame("app.other", "go")]),
    );
    expect(plain1).not.toBe(plain2);
  });
});
