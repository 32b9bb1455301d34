import { describe, expect, it } from "vitest";
import { scrubEvent, type ScrubbingSettings } from "../../src/plugins/data-scrubbing/scrub.js";
import { luhnValid } from "../../src/plugins/data-scrubbing/rules.js";

const ON: ScrubbingSettings = {
  dataScrubber: true,
  dataScrubberDefaults: true,
  scrubIPAddresses: false,
  sensitiveFields: [],
  safeFields: [],
};
const with_ = (overrides: Partial<ScrubbingSettings>): ScrubbingSettings => ({ ...ON, ...overrides });
const FILTERED_REMARK = (rule: string, len?: number) => ({
  "": len === undefined ? { rem: [[rule, "s", 0, 10]] } : { rem: [[rule, "s", 0, 10]], len },
});

function scrub(event: Record<string, unknown>, settings = ON) {
  // The scrubbed event is read at arbitrary depth below: loosely typed on purpose.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return scrubEvent(event, settings) as { event: Record<string, any>; changed: boolean };
}

describe("scrubEvent: Sentry's default rules", () => {
  it.each([
    "password",
    "secret",
    "passwd",
    "api_key",
    "apikey",
    "auth",
    "credentials",
    "mysql_pwd",
    "privatekey",
    "private_key",
    "token",
    "bearer",
    "Authorization",
    "Cookie",
    "Set-Cookie",
    "sessionid",
    "X-Access-Token",
    "db_PASSWORD_2",
  ])("a value under a key containing %s becomes [Filtered], remarked in _meta", (key) => {
    const { event, changed } = scrub({ extra: { [key]: "hunter2", plain: "kept" } });
    expect(changed).toBe(true);
    expect(event.extra).toEqual({ [key]: "[Filtered]", plain: "kept" });
    expect(event._meta).toEqual({ extra: { [key]: FILTERED_REMARK("@password:filter", 7) } });
  });

  it("a string value naming a secret is filtered whole (structured data sent as one string)", () => {
    const { event } = scrub({ request: { query_string: "page=2&api_key=abc", data: '{"password":"x"}' } });
    expect(event.request).toEqual({ query_string: "[Filtered]", data: "[Filtered]" });
  });

  it("numbers, booleans and lists under a sensitive key are filtered; objects are scrubbed entry by entry", () => {
    const { event } = scrub({
      extra: { pin_token: 1234, auth: true, tokens: ["a", "b"], credentials: { username: "jane", password: "p4ss" } },
    });
    expect(event.extra).toEqual({
      pin_token: "[Filtered]",
      auth: "[Filtered]",
      tokens: "[Filtered]",
      credentials: { username: "jane", password: "[Filtered]" },
    });
    expect(event._meta.extra.pin_token).toEqual(FILTERED_REMARK("@password:filter"));
  });

  it("headers and tags as [key, value] pairs are scrubbed by their key; _meta uses list indexes", () => {
    const { event } = scrub({
      request: {
        headers: [
          ["Accept", "text/html"],
          ["Authorization", "Basic Zm9vOmJhcg=="],
        ],
      },
      tags: [["session", "s1"]],
    });
    expect(event.request.headers).toEqual([
      ["Accept", "text/html"],
      ["Authorization", "[Filtered]"],
    ]);
    expect(event.tags).toEqual([["session", "[Filtered]"]]);
    expect(event._meta.request.headers["1"]["1"]).toEqual(FILTERED_REMARK("@password:filter", 18));
    expect(event._meta.tags["0"]["1"]).toEqual(FILTERED_REMARK("@password:filter", 2));
  });

  it("frame vars and breadcrumbs are scrubbed; a frame's code location and an exception's type are not", () => {
    const { event } = scrub({
      exception: {
        values: [
          {
            type: "AuthError",
            value: "boom",
            stacktrace: {
              frames: [{ function: "authenticate", filename: "auth/token.js", vars: { token: "t0k", n: 1 } }],
            },
          },
        ],
      },
      breadcrumbs: { values: [{ category: "auth", message: "ok", data: { apiKey: "k" } }] },
    });
    const [exception] = event.exception.values;
    expect(exception.type).toBe("AuthError");
    expect(exception.stacktrace.frames[0]).toEqual({
      function: "authenticate",
      filename: "auth/token.js",
      vars: { token: "[Filtered]", n: 1 },
    });
    expect(event.breadcrumbs.values[0]).toEqual({ category: "auth", message: "ok", data: { apiKey: "[Filtered]" } });
  });

  it("Luhn-valid card numbers are replaced where they are in a string, with their range in _meta", () => {
    const { event } = scrub({ message: "paid with 4111 1111 1111 1111 today", extra: { n: 4111111111111111 } });
    expect(event.message).toBe("paid with [Filtered] today");
    expect(event._meta.message).toEqual({ "": { rem: [["@creditcard:filter", "s", 10, 20]], len: 35 } });
    expect(event.extra.n).toBe("[Filtered]");
  });

  it("digit runs that fail the Luhn check, timestamps and ids are left alone", () => {
    const event = {
      message: "order 4111111111111112, at 1732752000000, build 5105105105105100.3",
      event_id: "41111111111111110000000000000000",
      extra: { ms: 1732752000000 },
    };
    expect(scrub(event)).toEqual({ event, changed: false });
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
  });

  it("private keys, URL passwords and US social security numbers are replaced in place", () => {
    const { event } = scrub({
      message: "dsn postgres://app:s3cr3tpw@db/main",
      extra: {
        key: "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----",
        note: "ssn 078-05-1120",
      },
    });
    expect(event.message).toBe("dsn postgres://app:[Filtered]@db/main");
    expect(event.extra.key).toBe("-----BEGIN RSA PRIVATE KEY-----[Filtered]-----END RSA PRIVATE KEY-----");
    expect(event.extra.note).toBe("ssn [Filtered]");
  });

  it("nothing matched: the very same object, unchanged (the accept path keeps the source text)", () => {
    const event = { message: "hello", extra: { user_count: 3 }, user: { id: "42", ip_address: "10.0.0.1" } };
    const result = scrub(event);
    expect(result.changed).toBe(false);
    expect(result.event).toBe(event);
  });

  it("does not touch the input event (copy on write)", () => {
    const event = { extra: { password: "x", nested: { a: 1 } }, user: { id: "1" } };
    const snapshot = structuredClone(event);
    const { event: scrubbed } = scrub(event);
    expect(event).toEqual(snapshot);
    expect(scrubbed.extra.nested).toBe(event.extra.nested);
    expect(scrubbed.user).toBe(event.user);
  });

  it("merges its remarks into the _meta the SDK sent", () => {
    const { event } = scrub({ extra: { password: "x" }, _meta: { message: { "": { len: 9000 } } } });
    expect(event._meta).toEqual({
      message: { "": { len: 9000 } },
      extra: { password: FILTERED_REMARK("@password:filter", 1) },
    });
  });
});

describe("scrubEvent: the project's settings", () => {
  it("dataScrubber off: nothing is scrubbed", () => {
    const event = { extra: { password: "x" }, message: "4111111111111111" };
    expect(scrub(event, with_({ dataScrubber: false }))).toEqual({ event, changed: false });
  });

  it("dataScrubberDefaults off: only the sensitive fields are scrubbed", () => {
    const { event } = scrub(
      { extra: { password: "x", mysekret: "y" }, message: "4111111111111111" },
      with_({ dataScrubberDefaults: false, sensitiveFields: ["MySekret"] }),
    );
    expect(event.extra).toEqual({ password: "x", mysekret: "[Filtered]" });
    expect(event.message).toBe("4111111111111111");
    expect(event._meta.extra.mysekret).toEqual(FILTERED_REMARK("strip-fields", 1));
  });

  it("sensitive fields match keys and values containing them, case-insensitively", () => {
    const { event } = scrub(
      { extra: { internal_acct_no: "1", note: "the ACCT is 9" }, message: "hello" },
      with_({ sensitiveFields: ["acct"] }),
    );
    expect(event.extra).toEqual({ internal_acct_no: "[Filtered]", note: "[Filtered]" });
  });

  it("safe fields are never scrubbed, nor anything below them", () => {
    const { event } = scrub(
      { extra: { token_count: "12 tokens", auth: { password: "x" }, password: "y" } },
      with_({ safeFields: ["Token_Count", "auth"] }),
    );
    expect(event.extra).toEqual({ token_count: "12 tokens", auth: { password: "x" }, password: "[Filtered]" });
  });

  it("scrubIPAddresses removes the user's, the request's and the SDK's address, even with dataScrubber off", () => {
    const { event } = scrub(
      {
        user: { id: "1", ip_address: "203.0.113.9" },
        request: { env: { REMOTE_ADDR: "203.0.113.9", SERVER_NAME: "web" } },
        sdk: { name: "sentry.javascript.node", client_ip: "203.0.113.9" },
      },
      with_({ dataScrubber: false, scrubIPAddresses: true }),
    );
    expect(event.user).toEqual({ id: "1", ip_address: null });
    expect(event.request.env).toEqual({ REMOTE_ADDR: null, SERVER_NAME: "web" });
    expect(event.sdk.client_ip).toBeNull();
    expect(event._meta.user.ip_address).toEqual({ "": { rem: [["@anything:remove", "x"]] } });
    expect(event._meta.request.env.REMOTE_ADDR).toEqual({ "": { rem: [["@anything:remove", "x"]] } });
  });

  it("IP addresses are kept by default", () => {
    const event = { user: { ip_address: "203.0.113.9" } };
    expect(scrub(event)).toEqual({ event, changed: false });
  });

  it("what is not an object is handed back as it is (validation refuses it later)", () => {
    expect(scrubEvent("nope", ON)).toEqual({ event: "nope", changed: false });
    expect(scrubEvent(null, ON)).toEqual({ event: null, changed: false });
  });
});

describe("hostile shapes", () => {
  it("walks a 10,000-level value without exhausting the stack, still scrubbing what normalisation keeps", () => {
    let deep: Record<string, unknown> = { password: "hunter2-deep" };
    for (let level = 0; level < 10_000; level++) deep = { a: deep };
    const { event, changed } = scrub({ extra: { deep, password: "hunter2" } });
    expect(changed).toBe(true);
    expect(event.extra.password).toBe("[Filtered]");
    expect(event.extra.deep).toBe(deep); // below the walk's depth: left to normalisation, which cuts it at 32 levels
  });
});
