import { timingSafeEqual } from "node:crypto";
import { hexSignature, standardWebhookSignature } from "./delivery/signing.js";

/**
 * Receiver-side verification of Faultline webhooks. Both functions compare in constant time and
 * never throw: malformed input is simply `false`.
 */

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks the `X-Svc-Hook-Signature` / `Svc-Hook-Signature` header: hex HMAC-SHA256 of the exact
 * raw body bytes, keyed with the hook secret or the app's client secret.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
): boolean {
  try {
    if (typeof header !== "string" || typeof secret !== "string" || secret === "") return false;
    return constantTimeEqual(hexSignature(secret, rawBody), header.trim().toLowerCase());
  } catch {
    return false;
  }
}

export interface StandardWebhookOptions {
  /** Accepted clock difference in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time, for tests (default now). */
  now?: Date;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, any letter case): one of the space-separated `v1,<base64>` signatures
 * must match, and the timestamp must be within the tolerance (replay protection).
 */
export function verifyStandardWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: StandardWebhookOptions = {},
): boolean {
  try {
    const id = header(headers, "webhook-id");
    const timestamp = header(headers, "webhook-timestamp");
    const signatures = header(headers, "webhook-signature");
    if (
      !id ||
      !timestamp ||
      !signatures ||
      !/^\d{1,12}$/.test(timestamp) ||
      typeof secret !== "string" ||
      secret === ""
    )
      return false;
    const now = (options.now ?? new Date()).getTime() / 1000;
    if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
    const expected = standardWebhookSignature(secret, id, Number(timestamp), rawBody);
    return signatures.split(" ").some((candidate) => constantTimeEqual(expected, candidate.trim()));
  } catch {
    return false;
  }
}
