import { createHmac } from "node:crypto";

/** The seed's signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret. */
export function hexSignature(secret: string, body: string | Uint8Array): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/** Standard Webhooks signs `<id>.<timestamp>.<body>` with the base64-decoded secret (`whsec_` stripped). */
export function standardWebhookKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}

export function standardWebhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  const mac = createHmac("sha256", standardWebhookKey(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}
