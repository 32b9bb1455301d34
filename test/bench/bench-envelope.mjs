// The error event every ingest benchmark sends, and the single-event envelope the load generators
// in their own processes send it in (support.ts re-exports the event for the in-process benches).
import { randomUUID } from "node:crypto";

/** The error event number `i`: `fingerprints` distinct stacks, four regions, 500 users. */
export function benchEvent(i, fingerprints) {
  const group = i % fingerprints;
  return {
    event_id: randomUUID().replaceAll("-", ""),
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    environment: "production",
    release: "bench@1.0.0",
    tags: { region: `r${i % 4}` },
    user: { id: `user-${i % 500}` },
    exception: {
      values: [
        {
          type: "BenchError",
          value: `failure ${group}`,
          stacktrace: {
            frames: [{ filename: "/app/server.js", function: `handler${group}`, lineno: 10, colno: 3, in_app: true }],
          },
        },
      ],
    },
  };
}

/** `{ eventId, body }` of envelope number `i`. */
export function benchEnvelope(i, fingerprints = 50) {
  const event = benchEvent(i, fingerprints);
  const eventId = event.event_id;
  return {
    eventId,
    body: `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(event)}`,
  };
}
