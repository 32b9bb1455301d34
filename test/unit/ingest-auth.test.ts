import { describe, expect, it } from "vitest";
import { parseSentryAuth, publicKeyFromDsn, publicKeyFromRequest } from "../../src/plugins/ingest/accept/dsn-auth.js";

const KEY = "0123456789abcdef0123456789abcdef";
const noQuery = new URLSearchParams();

describe("parseSentryAuth", () => {
  it("reads Sentry's X-Sentry-Auth header", () => {
    expect(
      parseSentryAuth(`Sentry sentry_key=${KEY}, sentry_version=7, sentry_client=sentry.javascript.browser/8.0.0`),
    ).toEqual({
      sentry_key: KEY,
      sentry_version: "7",
      sentry_client: "sentry.javascript.browser/8.0.0",
    });
  });

  it("tolerates a missing or lower-case prefix, no spaces, quotes, a secret and junk parts", () => {
    expect(parseSentryAuth(`sentry_key=${KEY},sentry_version=7`)).toEqual({ sentry_key: KEY, sentry_version: "7" });
    expect(parseSentryAuth(`sentry  sentry_version=7, sentry_key="${KEY}", sentry_secret=s3cr3t`)).toEqual({
      sentry_version: "7",
      sentry_key: KEY,
      sentry_secret: "s3cr3t",
    });
    expect(parseSentryAuth("Sentry garbage, =x, Sentry_Key=abc")).toEqual({ sentry_key: "abc" });
    expect(parseSentryAuth("")).toEqual({});
  });
});

describe("publicKeyFromRequest", () => {
  it("takes the key from X-Sentry-Auth, X-Svc-Auth, Authorization: Sentry …, or the sentry_key query", () => {
    expect(
      publicKeyFromRequest(new Headers({ "X-Sentry-Auth": `Sentry sentry_key=${KEY}, sentry_version=7` }), noQuery),
    ).toBe(KEY);
    expect(publicKeyFromRequest(new Headers({ "X-Svc-Auth": `Sentry sentry_key=${KEY}` }), noQuery)).toBe(KEY);
    expect(publicKeyFromRequest(new Headers({ Authorization: `Sentry sentry_key=${KEY}` }), noQuery)).toBe(KEY);
    expect(publicKeyFromRequest(new Headers(), new URLSearchParams(`sentry_version=7&sentry_key=${KEY}`))).toBe(KEY);
  });

  it("prefers the header over the query, and ignores bearer tokens and empty values", () => {
    const headers = new Headers({ "X-Sentry-Auth": "Sentry sentry_key=fromheader" });
    expect(publicKeyFromRequest(headers, new URLSearchParams("sentry_key=fromquery"))).toBe("fromheader");
    expect(publicKeyFromRequest(new Headers({ Authorization: "Bearer flu_abc" }), noQuery)).toBeNull();
    expect(
      publicKeyFromRequest(
        new Headers({ "X-Sentry-Auth": "Sentry sentry_version=7" }),
        new URLSearchParams("sentry_key="),
      ),
    ).toBeNull();
  });
});

describe("publicKeyFromDsn", () => {
  it("reads the public key from the DSN's user name", () => {
    expect(publicKeyFromDsn(`https://${KEY}@errors.example.com/faultline/42`)).toBe(KEY);
    expect(publicKeyFromDsn(`http://${KEY}:legacysecret@127.0.0.1:9000/1`)).toBe(KEY);
  });

  it("answers null for anything that is not a DSN with a key", () => {
    expect(publicKeyFromDsn("https://errors.example.com/42")).toBeNull();
    expect(publicKeyFromDsn("not a url")).toBeNull();
    expect(publicKeyFromDsn(undefined)).toBeNull();
    expect(publicKeyFromDsn(42)).toBeNull();
  });
});
