import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.js";
import { normalizeEvent, normalizeFilename } from "../../src/plugins/event-store/grouping/index.js";

const receivedAt = new Date("2026-11-22T10:33:30.000Z");

/** The event payload of the real @sentry/node 11 capture in sample-envelope.txt. */
const nodeEvent = (): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL("../fixtures/node-event.json", import.meta.url), "utf8"));

const normalize = (raw: unknown, options: { receivedAt?: Date; size?: number } = {}) =>
  normalizeEvent(raw, { receivedAt, ...options });

type Frame = Record<string, unknown>;
const frame = (filename: string, fn: string, extra: Frame = {}): Frame => ({
  filename,
  function: fn,
  lineno: 1,
  colno: 1,
  in_app: true,
  ...extra,
});

/** An error event with one exception; `overrides` replace top-level fields. */
function errorEvent(
  frames: Frame[],
  { type = "TypeError", value = "x is undefined", ...overrides }: Record<string, unknown> = {},
) {
  return { platform: "node", exception: { values: [{ type, value, stacktrace: { frames } }] }, ...overrides };
}

const hashOf = (raw: unknown) => normalize(raw).hashes[0];

/** The 400 an invalid event is rejected with. */
function rejection(raw: unknown): ApiError {
  try {
    normalize(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected the event to be rejected");
}

describe("the real @sentry/node event", () => {
  it("is normalised into what ingestion stores", () => {
    const raw = nodeEvent();
    const event = normalize(raw);
    expect(event).toMatchObject({
      eventId: "56e3e367f13a4bd78386e5a775a1f767",
      timestamp: new Date(1795343609653),
      received: receivedAt,
      level: "error",
      platform: "node",
      environment: "test",
      release: "shop@1.0.0",
      dist: null,
      type: "error",
      title: "Error: probe failure",
      // The innermost in-app frame, Sentry's JavaScript format: function(module).
      culprit: "?(server)",
      location: "/srv/app/server.mjs",
      metadata: { type: "Error", value: "probe failure", filename: "/srv/app/server.mjs", function: "?" },
      message: "probe failure",
      user: { id: "u1" },
      userKey: "id:u1",
    });
    expect(event.tags).toEqual([
      ["environment", "test"],
      ["handled", "yes"], // from exception.mechanism, as Sentry tags it (#15)
      ["level", "error"],
      ["mechanism", "generic"],
      // Derived from contexts, server_name and user, as Sentry tags them.
      ["os", "Debian 12.11"],
      ["os.name", "Debian"],
      ["probe", "yes"],
      ["release", "shop@1.0.0"],
      ["runtime", "node v20.20.2"],
      ["runtime.name", "node"],
      ["server_name", "app-1"],
      ["user", "id:u1"],
    ]);
    // `user.id` is the user key (`id:u1`): search finds it among the users, not here.
    expect(event.searchValues).toEqual([
      ["error.type", "Error"],
      ["error.value", "probe failure"],
    ]);
    expect(event.payload).toBe(raw);
    expect(event.size).toBe(Buffer.byteLength(JSON.stringify(raw)));
  });

  it("has a stable grouping hash", () => {
    const [hash, ...others] = normalize(nodeEvent()).hashes;
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(others).toEqual([]);
    // Pinned: a change here regroups every stored event into new issues.
    expect(hash).toBe("604c63ec1ee2f07a7b9cddba78c7fa44");
    expect(hashOf(nodeEvent())).toBe(hash);
  });

  it("keeps its hash when the message, line numbers or event id change", () => {
    const event = nodeEvent();
    const exception = (event.exception as { values: Array<{ value: string; stacktrace: { frames: Frame[] } }> })
      .values[0]!;
    exception.value = "probe failure #2";
    for (const f of exception.stacktrace.frames) f.lineno = Number(f.lineno) + 10;
    event.event_id = "0".repeat(32);
    expect(hashOf(event)).toBe("604c63ec1ee2f07a7b9cddba78c7fa44");
  });
});

describe("default grouping by stack trace", () => {
  const stack = [frame("/app/server.js", "handle"), frame("/app/db.js", "query")];

  it("groups the same stack with different values together", () => {
    expect(hashOf(errorEvent(stack, { value: "user 1 missing" }))).toBe(
      hashOf(errorEvent(stack, { value: "user 2 missing" })),
    );
  });

  it("separates different stacks", () => {
    expect(hashOf(errorEvent(stack))).not.toBe(
      hashOf(errorEvent([frame("/app/server.js", "handle"), frame("/app/cache.js", "get")])),
    );
    expect(hashOf(errorEvent(stack))).not.toBe(
      hashOf(errorEvent([frame("/app/server.js", "handle"), frame("/app/db.js", "insert")])),
    );
  });

  it("separates exception types with the same stack", () => {
    expect(hashOf(errorEvent(stack, { type: "TypeError" }))).not.toBe(
      hashOf(errorEvent(stack, { type: "RangeError" })),
    );
  });

  it("prefers the module over the filename", () => {
    const withModule = (filename: string) => errorEvent([frame(filename, "handle", { module: "server" })]);
    expect(hashOf(withModule("/srv/v1/server.js"))).toBe(hashOf(withModule("/srv/v2/server.js")));
  });

  it("uses only in-app frames when there are some", () => {
    const library = (name: string) => frame(`/app/node_modules/lib/${name}.js`, name, { in_app: false });
    const app = frame("/app/server.js", "handle");
    expect(hashOf(errorEvent([library("a"), app]))).toBe(hashOf(errorEvent([library("b"), library("c"), app])));
    expect(hashOf(errorEvent([library("a"), app]))).toBe(hashOf(errorEvent([app])));
  });

  it("uses all frames when none is in-app (in_app false or absent)", () => {
    const system = (name: string, extra: Frame = { in_app: false }) => frame(`/lib/${name}.js`, name, extra);
    expect(hashOf(errorEvent([system("a"), system("b")]))).not.toBe(hashOf(errorEvent([system("a"), system("c")])));
    expect(hashOf(errorEvent([system("a", { in_app: undefined })]))).not.toBe(
      hashOf(errorEvent([system("b", { in_app: undefined })])),
    );
  });

  it("normalises filenames: query strings, hashes, line:column and URL hosts do not split issues", () => {
    const base = hashOf(errorEvent([frame("/app/x.js", "run")]));
    expect(hashOf(errorEvent([frame("/app/x.js?v=1#frag", "run")]))).toBe(base);
    expect(hashOf(errorEvent([frame("/app/x.js:10:5", "run")]))).toBe(base);
    expect(hashOf(errorEvent([frame("https://cdn.example.com/app/x.js?v=2", "run")]))).toBe(base);
    expect(hashOf(errorEvent([frame("/app/y.js", "run")]))).not.toBe(base);
  });

  it("normalizeFilename keeps what identifies the file", () => {
    expect(normalizeFilename("/app/x.js?v=1#frag")).toBe("/app/x.js");
    expect(normalizeFilename("/app/x.js#frag")).toBe("/app/x.js");
    expect(normalizeFilename("/app/x.js:10:5")).toBe("/app/x.js");
    expect(normalizeFilename("/app/x.js:10")).toBe("/app/x.js");
    expect(normalizeFilename("http://localhost:3000/static/app.js?v=3:1:200")).toBe("/static/app.js");
    expect(normalizeFilename("app:///main.js")).toBe("/main.js");
    expect(normalizeFilename("node:internal/process/task_queues")).toBe("node:internal/process/task_queues");
  });

  it("falls back to abs_path when a frame has no filename", () => {
    expect(hashOf(errorEvent([{ abs_path: "/app/x.js", function: "run", in_app: true }]))).toBe(
      hashOf(errorEvent([frame("/app/x.js", "run")])),
    );
  });
});

describe("exceptions without a stack trace, chains and messages", () => {
  const noStack = (type: string, value: string) => ({ exception: { values: [{ type, value }] } });

  it("groups an exception without frames by type and value", () => {
    expect(hashOf(noStack("Error", "a"))).not.toBe(hashOf(noStack("Error", "b")));
    expect(hashOf(noStack("Error", "a"))).toBe(hashOf(noStack("Error", "a")));
    expect(hashOf(noStack("Error", "a"))).not.toBe(hashOf(noStack("TypeError", "a")));
  });

  it("lets every exception of a chain contribute; the last one is the main exception", () => {
    const cause = {
      type: "DbError",
      value: "connection reset",
      stacktrace: { frames: [frame("/app/db.js", "query")] },
    };
    const main = (frames: Frame[]) => ({
      type: "RequestError",
      value: "request failed\nsee cause",
      stacktrace: { frames },
    });
    const chained = (causeFrames: Frame[], mainFrames: Frame[]) => ({
      platform: "node",
      exception: { values: [{ ...cause, stacktrace: { frames: causeFrames } }, main(mainFrames)] },
    });
    const event = normalize(chained([frame("/app/db.js", "query")], [frame("/app/routes.js", "get")]));
    expect(event.title).toBe("RequestError: request failed");
    expect(event.culprit).toBe("get(/app/routes.js)");
    expect(event.metadata).toMatchObject({ type: "RequestError", value: "request failed\nsee cause" });
    expect(event.message).toBe("connection reset\nrequest failed\nsee cause");
    // A different cause stack is a different issue, even with the same outer exception.
    expect(event.hashes[0]).not.toBe(
      hashOf(chained([frame("/app/cache.js", "get")], [frame("/app/routes.js", "get")])),
    );
    expect(event.hashes[0]).not.toBe(
      hashOf({ platform: "node", exception: { values: [main([frame("/app/routes.js", "get")])] } }),
    );
  });

  it("accepts the legacy exception list and takes the culprit from a cause when the main exception has no frames", () => {
    const event = normalize({
      platform: "python",
      exception: [
        {
          type: "KeyError",
          value: "'id'",
          stacktrace: { frames: [{ module: "app.views", function: "show", in_app: true }, { module: "app.db" }] },
        },
        { type: "HTTPError", value: "500" },
      ],
    });
    expect(event.title).toBe("HTTPError: 500");
    // No function on the innermost in-app frame ("app.db" is not in-app): Sentry's "module in function".
    expect(event.culprit).toBe("app.views in show");
    expect(event.location).toBeNull();
  });

  it("groups messages by their template, not by the substituted text", () => {
    const logentry = (params: unknown[]) => ({ logentry: { message: "User %s not found in %s", params } });
    const event = normalize(logentry(["42", "db"]));
    expect(event.message).toBe("User 42 not found in db");
    expect(event.title).toBe("User 42 not found in db");
    expect(event.type).toBe("default");
    expect(event.metadata).toEqual({ title: "User 42 not found in db" });
    expect(event.hashes[0]).toBe(hashOf(logentry(["43", "cache"])));
  });

  it("groups messages without a template by their formatted text", () => {
    expect(hashOf({ message: "disk full on /var" })).not.toBe(hashOf({ message: "disk full on /tmp" }));
    expect(hashOf({ message: "disk full on /var" })).toBe(hashOf({ logentry: { formatted: "disk full on /var" } }));
    // The SDK's formatted text is shown; the template still groups.
    const event = normalize({ logentry: { message: "Took %sms", formatted: "Took 1200ms", params: [1200] } });
    expect(event.message).toBe("Took 1200ms");
    expect(event.hashes[0]).toBe(hashOf({ logentry: { message: "Took %sms", params: [5] } }));
  });

  it("formats named params and keeps placeholders without a param", () => {
    expect(normalize({ logentry: { message: "%(user)s paid 100%% of %s", params: { user: "ada" } } }).message).toBe(
      "ada paid 100% of %s",
    );
  });

  it("labels an event with nothing to show, and groups such events together", () => {
    const event = normalize({ level: "info" });
    expect(event).toMatchObject({
      title: "<unlabeled event>",
      culprit: "",
      type: "default",
      metadata: { title: "<unlabeled event>" },
      message: "",
    });
    expect(event.hashes[0]).toBe(hashOf({ tags: { a: "b" } }));
    expect(event.hashes[0]).not.toBe(hashOf({ message: "hello" }));
  });
});

describe("custom fingerprints", () => {
  const stackA = [frame("/app/a.js", "a")];
  const stackB = [frame("/app/b.js", "b")];

  it("replace the default grouping", () => {
    const event = normalize(errorEvent(stackA, { fingerprint: ["database-unavailable"] }));
    expect(event.hashes).toHaveLength(1);
    expect(event.hashes[0]).toBe(hashOf(errorEvent(stackB, { fingerprint: ["database-unavailable"] })));
    expect(event.hashes[0]).not.toBe(hashOf(errorEvent(stackA)));
    expect(event.hashes[0]).not.toBe(hashOf(errorEvent(stackA, { fingerprint: ["other"] })));
  });

  it("accept numbers, and an empty fingerprint means the default", () => {
    expect(hashOf(errorEvent(stackA, { fingerprint: ["code", 42] }))).toBe(
      hashOf(errorEvent(stackB, { fingerprint: ["code", "42"] })),
    );
    expect(hashOf(errorEvent(stackA, { fingerprint: [] }))).toBe(hashOf(errorEvent(stackA)));
  });

  it("extend the default with {{ default }}, spelt with or without spaces, in any case", () => {
    const defaultHash = hashOf(errorEvent(stackA));
    for (const placeholder of ["{{ default }}", "{{default}}", "{{ DEFAULT }}"]) {
      expect(normalize(errorEvent(stackA, { fingerprint: [placeholder] })).hashes).toEqual([defaultHash]);
    }
    const extended = (stack: Frame[], extra: string) =>
      hashOf(errorEvent(stack, { fingerprint: ["{{ default }}", extra] }));
    expect(extended(stackA, "/users")).not.toBe(defaultHash);
    expect(extended(stackA, "/users")).not.toBe(extended(stackA, "/orders"));
    expect(extended(stackA, "/users")).not.toBe(extended(stackB, "/users"));
    expect(extended(stackA, "/users")).toBe(
      hashOf(errorEvent(stackA, { value: "other value", fingerprint: ["{{default}}", "/users"] })),
    );
  });
});

describe("title and culprit", () => {
  it("cuts the value part of the title to 100 characters and keeps its first line", () => {
    const title = normalize(errorEvent([], { type: "Error", value: `${"x".repeat(150)}\nsecond line` })).title;
    expect(title.startsWith("Error: xxx")).toBe(true);
    expect(title.length).toBe("Error: ".length + 100);
    expect(normalize(errorEvent([], { value: "first\nsecond" })).title).toBe("TypeError: first");
  });

  it("uses the type without a value, and Error without a type", () => {
    expect(normalize({ exception: { values: [{ type: "Timeout" }] } }).title).toBe("Timeout");
    expect(normalize({ exception: { values: [{ value: "boom" }] } }).title).toBe("Error: boom");
  });

  it("cuts a message title to its first line of 100 characters", () => {
    expect(normalize({ message: "line one\nline two" }).title).toBe("line one");
    expect(normalize({ message: "y".repeat(300) }).title).toHaveLength(100);
  });

  it("prefers the SDK's culprit, then the transaction, then the crashing frame, then the request URL", () => {
    const stack = [frame("/app/x.js", "run")];
    expect(normalize(errorEvent(stack, { culprit: "custom culprit", transaction: "GET /users" })).culprit).toBe(
      "custom culprit",
    );
    expect(normalize(errorEvent(stack, { transaction: "GET /users" })).culprit).toBe("GET /users");
    expect(normalize(errorEvent(stack)).culprit).toBe("run(/app/x.js)");
    expect(normalize(errorEvent([], { request: { url: "https://shop.test/cart" } })).culprit).toBe(
      "https://shop.test/cart",
    );
    expect(normalize(errorEvent(stack, { culprit: "z".repeat(300) })).culprit).toHaveLength(200);
  });

  it("takes the innermost in-app frame, else the innermost frame; formats by platform", () => {
    const frames = [
      frame("/app/outer.js", "outer"),
      frame("/app/inner.js", "inner"),
      frame("/lib/x.js", "lib", { in_app: false }),
    ];
    expect(normalize(errorEvent(frames)).culprit).toBe("inner(/app/inner.js)");
    expect(normalize(errorEvent(frames)).location).toBe("/app/inner.js");
    const system = frames.map((f) => ({ ...f, in_app: false }));
    expect(normalize(errorEvent(system)).culprit).toBe("lib(/lib/x.js)");
    expect(normalize(errorEvent(frames, { platform: "python" })).culprit).toBe("/app/inner.js in inner");
    expect(normalize(errorEvent([{ module: "app.jobs", in_app: true }], { platform: "python" })).culprit).toBe(
      "app.jobs in ?",
    );
  });
});

describe("normalisation of scalars", () => {
  it("maps levels and their aliases; unknown or missing levels are errors", () => {
    const levelOf = (level: unknown) => normalize({ level }).level;
    expect(levelOf(undefined)).toBe("error");
    expect(levelOf("warn")).toBe("warning");
    expect(levelOf("WARNING")).toBe("warning");
    expect(levelOf("critical")).toBe("fatal");
    expect(levelOf("info")).toBe("info");
    expect(levelOf("debug")).toBe("debug");
    expect(levelOf("verbose")).toBe("error");
    expect(levelOf("constructor")).toBe("error");
    expect(levelOf(30)).toBe("warning");
  });

  it("trims environment, release and dist, drops empty ones, coerces numbers and cuts long ones", () => {
    const event = normalize({ environment: "  production ", release: 2, dist: "   ", platform: "" });
    expect(event).toMatchObject({ environment: "production", release: "2", dist: null, platform: null });
    expect(normalize({ release: "r".repeat(250) }).release).toHaveLength(200);
    expect(normalize({ release: { version: "1" } }).release).toBeNull();
  });

  it("normalises tags: objects or pairs, sorted, cut, and derived level/environment/release win", () => {
    const fromObject = normalize({
      level: "warn",
      environment: "prod",
      tags: { zone: "eu", ["k".repeat(40)]: "v".repeat(250), level: "debug", retries: 3, empty: "", nested: { a: 1 } },
    });
    expect(fromObject.tags).toEqual([
      ["environment", "prod"],
      ["k".repeat(32), "v".repeat(200)],
      ["level", "warning"],
      ["retries", "3"],
      ["zone", "eu"],
    ]);
    const fromPairs = normalize({ tags: [["b", "2"], ["a", "1"], ["bad"], "junk", ["release", "from-tag"]] });
    expect(fromPairs.tags).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["level", "error"],
      ["release", "from-tag"],
    ]);
    expect(normalize({ release: "1.0", tags: [["release", "from-tag"]] }).tags).toContainEqual(["release", "1.0"]);
  });

  it("keeps user fields as strings and counts users by id, email, username, then IP", () => {
    expect(normalize({ user: { id: 42, email: "a@b.test" } })).toMatchObject({
      user: { id: "42", email: "a@b.test" },
      userKey: "id:42",
    });
    expect(normalize({ user: { email: "a@b.test", username: "ada" } }).userKey).toBe("email:a@b.test");
    expect(normalize({ user: { username: "ada", ip_address: "10.0.0.1" } }).userKey).toBe("username:ada");
    expect(normalize({ user: { ip_address: "10.0.0.1" } }).userKey).toBe("ip:10.0.0.1");
    // {{auto}} asks the server for the client IP, which is not known here.
    expect(normalize({ user: { ip_address: "{{auto}}" } })).toMatchObject({ user: null, userKey: null });
    expect(normalize({ user: { ip_address: "{{auto}}", name: "Ada" } })).toMatchObject({
      user: { name: "Ada" },
      userKey: null,
    });
    expect(normalize({})).toMatchObject({ user: null, userKey: null });
  });

  it("accepts dashed UUID event ids and replaces invalid ones", () => {
    expect(normalize({ event_id: "56E3E367-F13A-4BD7-8386-E5A775A1F767" }).eventId).toBe(
      "56e3e367f13a4bd78386e5a775a1f767",
    );
    for (const eventId of [undefined, "not-an-id", 12, "56e3e367f13a4bd78386e5a775a1f76"]) {
      expect(normalize({ event_id: eventId }).eventId).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(normalize({}).eventId).not.toBe(normalize({}).eventId);
  });

  it("reads timestamps as float seconds or ISO strings; missing, invalid, future or > 30 days old ones become the receive time (as Relay)", () => {
    const timestampOf = (timestamp: unknown) => normalize({ timestamp }).timestamp;
    expect(timestampOf(1795343609.653)).toEqual(new Date("2026-11-22T10:33:29.653Z"));
    expect(timestampOf("2026-11-22T10:33:29.653Z")).toEqual(new Date("2026-11-22T10:33:29.653Z"));
    expect(timestampOf("2026-11-22T11:33:29+01:00")).toEqual(new Date("2026-11-22T10:33:29Z"));
    // Without an offset a time is UTC (as in Relay), whatever the server's time zone.
    expect(timestampOf("2026-11-22T10:33:29")).toEqual(new Date("2026-11-22T10:33:29Z"));
    expect(timestampOf("1795343609.5")).toEqual(new Date(1795343609500));
    expect(timestampOf(undefined)).toBe(receivedAt);
    expect(timestampOf("yesterday-ish")).toBe(receivedAt);
    expect(timestampOf({})).toBe(receivedAt);
    // A client clock slightly ahead is tolerated; further ahead, the receive time is used.
    expect(timestampOf(receivedAt.getTime() / 1000 + 30)).toEqual(new Date(receivedAt.getTime() + 30_000));
    expect(timestampOf(receivedAt.getTime() / 1000 + 3600)).toBe(receivedAt);
    // Older than 30 days (or before PostgreSQL's range): the receive time, with the reason in `errors`.
    expect(timestampOf(receivedAt.getTime() / 1000 - 29 * 86_400)).toEqual(
      new Date(receivedAt.getTime() - 29 * 86_400_000),
    );
    expect(timestampOf(1_000_000_000)).toBe(receivedAt);
    expect(timestampOf("0000-01-01T00:00:00Z")).toBe(receivedAt);
    expect(normalize({ timestamp: "0000-01-01T00:00:00Z" }).payload).toEqual({
      timestamp: receivedAt.getTime() / 1000,
      errors: [
        { type: "past_timestamp", name: "timestamp", value: "0000-01-01T00:00:00Z", reason: expect.any(String) },
      ],
    });
    expect(normalize({ timestamp: 1e300 }).payload.errors).toEqual([
      expect.objectContaining({ type: "invalid_data", name: "timestamp", value: 1e300 }),
    ]);
    expect(normalize({ timestamp: receivedAt.getTime() / 1000 + 3600 }).payload.errors).toEqual([
      expect.objectContaining({ type: "future_timestamp" }),
    ]);
    expect(normalize({ timestamp: receivedAt.getTime() / 1000 }).payload.errors).toBeUndefined();
  });

  it("takes the size from the options, else measures the JSON", () => {
    expect(normalize({ message: "é" }, { size: 1234 }).size).toBe(1234);
    expect(normalize({ message: "é" }).size).toBe(Buffer.byteLength('{"message":"é"}'));
  });

  it("ignores unknown fields and nulls", () => {
    const event = normalize({
      foo: { bar: 1 },
      exception: null,
      user: null,
      tags: null,
      fingerprint: null,
      release: null,
      request: "x",
    });
    expect(event).toMatchObject({ type: "default", user: null, release: null, title: "<unlabeled event>" });
  });
});

describe("invalid events are rejected with a 400", () => {
  it.each([
    ["a string", "event", /^Invalid event: expected a JSON object, got string$/],
    ["an array", [{ message: "x" }], /^Invalid event: expected a JSON object, got array$/],
    ["null", null, /^Invalid event: expected a JSON object, got null$/],
    [
      "a string exception",
      { exception: "boom" },
      /^Invalid event: exception: expected an object with `values` or an array, got string$/,
    ],
    [
      "non-array exception values",
      { exception: { values: { type: "Error" } } },
      /^Invalid event: exception\.values: expected array, got object$/,
    ],
    [
      "a non-object exception value",
      { exception: { values: ["boom"] } },
      /^Invalid event: exception\.values\.0: expected an exception object, got string$/,
    ],
    [
      "non-array frames",
      { exception: { values: [{ type: "E", stacktrace: { frames: "x" } }] } },
      /exception\.values\.0\.stacktrace\.frames: expected array, got string/,
    ],
    [
      "a non-object frame",
      { exception: { values: [{ type: "E", stacktrace: { frames: [42] } }] } },
      /frames\.0: expected a stack frame object, got number/,
    ],
    [
      "a string fingerprint",
      { fingerprint: "my-group" },
      /^Invalid event: fingerprint: expected an array of strings, got string$/,
    ],
    [
      "a fingerprint with objects",
      { fingerprint: ["a", { b: 1 }] },
      /^Invalid event: fingerprint\.1: expected a string or a number, got object$/,
    ],
    [
      "string tags",
      { tags: "a=b" },
      /^Invalid event: tags: expected an object or an array of \[key, value\] pairs, got string$/,
    ],
    ["a string user", { user: "ada" }, /^Invalid event: user: expected an object, got string$/],
  ])("%s", (_label, raw, detail) => {
    const error = rejection(raw);
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(detail);
    expect(error.extra.errors).toBeTypeOf("object");
  });
});
