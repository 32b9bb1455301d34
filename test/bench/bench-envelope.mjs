// The single-event envelope the load generators in their own processes send (the event of
// support.ts's benchEvent: `fingerprints` distinct stacks, four regions, 500 users).
import { randomUUID } from "node:crypto";

/** `{ eventId, body }` of envelope number `i`. */
export function benchEnvelope(i, fingerprints = 50) {
  const group = i % fingerprints;
  const eventId = randomUUID().replaceAll("-", "");
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    environment: "production",
    release: "bench@1.0.0",
    tags: { region: `r${i % 4}` },
    user: { id: `user-${i % 500}` },
    exception: { values: [{ type: "BenchError", value: `failure ${group}`, stacktrace: { frames: [{ filename: "/app/server.js", function: `handler${group}`, lineno: 10, colno: 3, in_app: true }] } }] },
  };
  return { eventId, body: `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(event)}` };
}
