import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hexSignature } from "../../src/delivery/signing.js";
import { checkDestination, isBlockedAddress } from "../../src/delivery/ssrf.js";
import { isRetryable, nextAttemptDelayMs, parseRetryAfter } from "../../src/delivery/schedule.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";

describe("verifyStandardWebhook", () => {
  // The published Standard Webhooks known-answer vector.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = '{"test": 2432232314}';
  const headers = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  const now = new Date(1614265330 * 1000);

  it("accepts the known-answer vector, from a string or bytes, with any header case", () => {
    expect(verifyStandardWebhook(body, headers, secret, { now })).toBe(true);
    expect(verifyStandardWebhook(new TextEncoder().encode(body), headers, secret, { now })).toBe(true);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyStandardWebhook(body, upper, secret, { now })).toBe(true);
    expect(verifyStandardWebhook(body, new Headers(headers), secret, { now })).toBe(true);
  });

  it("accepts when one of several signatures matches", () => {
    const multiple = { ...headers, "webhook-signature": `v1,bm9wZQ== ${headers["webhook-signature"]} v2,other` };
    expect(verifyStandardWebhook(body, multiple, secret, { now })).toBe(true);
  });

  it("rejects a tampered body, a wrong secret, a truncated signature and stale or future timestamps, without throwing", () => {
    expect(verifyStandardWebhook('{"test": 2432232315}', headers, secret, { now })).toBe(false);
    expect(verifyStandardWebhook(body, headers, "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", { now })).toBe(false);
    expect(
      verifyStandardWebhook(
        body,
        { ...headers, "webhook-signature": headers["webhook-signature"].slice(0, 20) },
        secret,
        { now },
      ),
    ).toBe(false);
    expect(verifyStandardWebhook(body, headers, secret, { now: new Date(now.getTime() + 301_000) })).toBe(false);
    expect(verifyStandardWebhook(body, headers, secret, { now: new Date(now.getTime() - 301_000) })).toBe(false);
    expect(verifyStandardWebhook(body, headers, secret, { now: new Date(now.getTime() + 299_000) })).toBe(true);
    expect(verifyStandardWebhook(body, { ...headers, "webhook-timestamp": "abc" }, secret, { now })).toBe(false);
    expect(verifyStandardWebhook(body, {}, secret, { now })).toBe(false);
    expect(verifyStandardWebhook(body, headers, "", { now })).toBe(false);
    expect(verifyStandardWebhook(body, headers, null as never, { now })).toBe(false);
  });
});

describe("verifySignature (hex HMAC-SHA256 of the raw body)", () => {
  const secret = "a".repeat(64);
  const body = '{"id":"1"}';
  const signature = hexSignature(secret, body);

  it("accepts the exact bytes and rejects anything else, never throwing", () => {
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature(body, signature, secret)).toBe(true);
    expect(verifySignature(Buffer.from(body), signature.toUpperCase(), secret)).toBe(true);
    expect(verifySignature(`${body} `, signature, secret)).toBe(false);
    expect(verifySignature(body, signature, "b".repeat(64))).toBe(false);
    expect(verifySignature(body, signature.slice(0, 63), secret)).toBe(false);
    expect(verifySignature(body, undefined, secret)).toBe(false);
    expect(verifySignature(body, "", secret)).toBe(false);
  });

  it("matches an independent node:crypto HMAC-SHA256 hex digest of the raw bytes", () => {
    const fixedSecret = "faultline-test-secret";
    const fixedBody = '{"id":"1"}';
    const independent = createHmac("sha256", fixedSecret).update(fixedBody).digest("hex");
    expect(independent).toBe("cf809b3f204067c82022e283a144392d17924ca856bed23aa0dac342d67fc5ba");
    expect(hexSignature(fixedSecret, fixedBody)).toBe(independent);
    expect(verifySignature(fixedBody, independent, fixedSecret)).toBe(true);
    expect(verifySignature(new TextEncoder().encode(fixedBody), independent, fixedSecret)).toBe(true);
    // Raw bytes that are not valid UTF-8 are signed as bytes, not as a decoded string.
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b]);
    const overBytes = createHmac("sha256", "0123456789abcdef").update(bytes).digest("hex");
    expect(overBytes).toBe("6b96e475991100f52553bf8a881858cbaafbd75e3e8c3765dc1cb3b76b01785b");
    expect(verifySignature(bytes, overBytes, "0123456789abcdef")).toBe(true);
    expect(verifySignature(bytes.toString("utf8"), overBytes, "0123456789abcdef")).toBe(false);
  });

  it("returns false, never throws, on garbage signatures, secrets and bodies", () => {
    const garbageSignatures: unknown[] = [
      "z".repeat(64), // non-hex, right length
      `${signature.slice(0, 63)}g`,
      `${signature}00`, // too long
      signature.slice(0, 10),
      "é".repeat(64), // multi-byte: same characters, different byte length
      `v1,${Buffer.from(signature, "hex").toString("base64")}`, // the other scheme's format
      " ",
      "\u0000".repeat(64),
      null,
      undefined,
      0,
      123,
      {},
      [signature],
      Buffer.from(signature),
      Symbol("x"),
    ];
    for (const garbage of garbageSignatures) {
      expect(() => verifySignature(body, garbage as string, secret), String(garbage)).not.toThrow();
      expect(verifySignature(body, garbage as string, secret), String(garbage)).toBe(false);
    }
    for (const badSecret of [undefined, null, "", 0, {}, ["a"]]) {
      expect(() => verifySignature(body, signature, badSecret as never)).not.toThrow();
      expect(verifySignature(body, signature, badSecret as never)).toBe(false);
    }
    for (const badBody of [undefined, null, 42, {}, [1, 2]]) {
      expect(() => verifySignature(badBody as never, signature, secret)).not.toThrow();
      expect(verifySignature(badBody as never, signature, secret)).toBe(false);
    }
  });
});

describe("SSRF policy", () => {
  it("blocks loopback, private, link-local, CGNAT, multicast, reserved and mapped addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::10.0.0.1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
      expect(isBlockedAddress(address), address).toBe(false);
  });

  it("checks URLs at creation, including names that resolve to private addresses", async () => {
    const options = { allowPrivateNetworks: false };
    expect(await checkDestination("http://127.0.0.1:8080/hook", options)).toMatch(/private/);
    expect(await checkDestination("http://[::ffff:10.0.0.1]/", options)).toMatch(/private/);
    expect(await checkDestination("http://localhost/hook", options)).toMatch(/private/);
    const resolvesPrivately = async () => [{ address: "10.0.0.7", family: 4 }];
    expect(await checkDestination("https://hooks.example.com/x", { ...options, resolve: resolvesPrivately })).toMatch(
      /10\.0\.0\.7/,
    );
    const resolvesPublicly = async () => [{ address: "93.184.216.34", family: 4 }];
    expect(await checkDestination("https://hooks.example.com/x", { ...options, resolve: resolvesPublicly })).toBeNull();
    expect(await checkDestination("ftp://example.com/", options)).toMatch(/http/);
    expect(await checkDestination("not a url", options)).toMatch(/valid URL/);
    expect(await checkDestination("http://127.0.0.1/", { allowPrivateNetworks: true })).toBeNull();
  });
});

describe("retry schedule", () => {
  it("retries network errors, timeouts, 408/425/429 and 5xx only", () => {
    for (const status of [0, 408, 425, 429, 500, 502, 503]) expect(isRetryable(status)).toBe(true);
    for (const status of [301, 400, 401, 404, 410, 422]) expect(isRetryable(status)).toBe(false);
  });

  it("jitters by at most 10 %, honours Retry-After capped at 24 h, and stops after the last delay", () => {
    expect(nextAttemptDelayMs(1, [5, 300], null, () => 0)).toBe(4500);
    expect(nextAttemptDelayMs(1, [5, 300], null, () => 1)).toBe(5500);
    expect(nextAttemptDelayMs(2, [5, 300], 7, () => 0.5)).toBe(7000);
    expect(nextAttemptDelayMs(1, [5], 999_999)).toBe(86_400_000);
    expect(nextAttemptDelayMs(3, [5, 300], null)).toBeNull();
    expect(parseRetryAfter("120", new Date())).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString(), new Date())).toBeGreaterThan(55);
    expect(parseRetryAfter("soon", new Date())).toBeNull();
  });
});
