// A webhook receiver for Faultline's service hooks and app webhooks: verifies both signature
// schemes from the raw bytes, answers 401 on a mismatch, and de-duplicates on the delivery id.
// Service hooks sign with `X-Svc-Hook-Signature` and the hook's secret, app webhooks with
// `Svc-Hook-Signature` and the app's client secret; both also carry the Standard Webhooks headers
// (webhook-id, webhook-timestamp, webhook-signature; ±5 minutes replay window). Run one receiver
// per secret. Both signatures must be valid: either one alone is a 401.
import { createServer } from "node:http";
import { verifySignature, verifyStandardWebhook } from "faultline/verify";

/**
 * @param {{ secret: string, onEvent: (event: { id: string, type: string | undefined, payload: unknown }) => void }} options
 */
export function createReceiver({ secret, onEvent }) {
  const seen = new Set(); // use a database with a unique key in production
  return createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks); // verify the exact bytes: never re-serialise parsed JSON
      const seedSignature = req.headers["svc-hook-signature"] ?? req.headers["x-svc-hook-signature"];
      if (!verifySignature(raw, seedSignature, secret) || !verifyStandardWebhook(raw, req.headers, secret)) {
        res.writeHead(401).end("invalid signature");
        return;
      }
      const id = req.headers["webhook-id"];
      res.writeHead(200).end("ok"); // acknowledge quickly; do slow work afterwards
      // A retry or redelivery of something already handled (same webhook-id): acknowledged with the
      // same 200, so the sender stops retrying, but not processed again.
      if (seen.has(id)) return;
      seen.add(id);
      onEvent({ id, type: req.headers["x-svc-hook-event"] ?? req.headers["svc-hook-resource"], payload: JSON.parse(raw.toString("utf8")) });
    });
  });
}

// `node examples/webhook-receiver/receiver.mjs` with WEBHOOK_SECRET set: print what arrives.
if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write("set WEBHOOK_SECRET to the hook secret or the app's client secret\n");
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 4000);
  createReceiver({ secret, onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`) }).listen(port, "127.0.0.1", () =>
    process.stdout.write(`webhook receiver on http://127.0.0.1:${port}\n`),
  );
}
