// The error event every ingest benchmark sends, and the single-event envelope the load generators
// in their own processes send it in (support.ts re-exports the event for the in-process benches).
import { randomUUID } from "node:crypto";

/**
 * `BENCH_ENVELOPE=realistic`: each event also carries what a browser SDK's does (~7.8 KB of JSON:
 * a 17-frame stack with source context, 20 breadcrumbs, request headers, contexts), the size an
 * error storm is made of. Unset: the minimal event the earlier figures were measured with.
 */
const REALISTIC = process.env.BENCH_ENVELOPE === "realistic";

function realisticExtras(i) {
  const frames = Array.from({ length: 16 }, (_, f) => ({
    filename: `https://app.example.com/static/js/chunk-${f}.3f9a1c.js`,
    function: `Component${f}.render`,
    lineno: 100 + f,
    colno: 17,
    in_app: f > 10,
    pre_context: ["  const state = useState();", "  if (!state) return null;"],
    context_line: `  return props.items.map((item) => item.value${f});`,
    post_context: ["}", ""],
  }));
  const breadcrumbs = Array.from({ length: 20 }, (_, b) => ({
    timestamp: Date.now() / 1000 - b,
    category: b % 2 ? "fetch" : "ui.click",
    message: b % 2 ? undefined : `button#submit-${b}`,
    data: b % 2 ? { method: "GET", url: `/api/items/${b}?page=${i % 7}`, status_code: 200 } : undefined,
  }));
  return {
    frames,
    breadcrumbs: { values: breadcrumbs },
    request: {
      url: `https://app.example.com/orders/${i % 1000}`,
      headers: {
        "User-Agent":
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        Referer: "https://app.example.com/",
      },
    },
    contexts: {
      browser: { name: "Chrome", version: "131.0.0" },
      os: { name: "Windows", version: "10" },
      trace: { trace_id: "4c79f60c11214eb38604f4ae0781bfb2", span_id: "fa90fdead5f74052" },
    },
    sdk: { name: "sentry.javascript.browser", version: "8.40.0" },
  };
}

/** The error event number `i`: `fingerprints` distinct stacks, four regions, 500 users. */
export function benchEvent(i, fingerprints) {
  const group = i % fingerprints;
  const { frames, ...extras } = REALISTIC ? realisticExtras(i) : { frames: [] };
  return {
    ...extras,
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
            frames: [
              ...frames,
              { filename: "/app/server.js", function: `handler${group}`, lineno: 10, colno: 3, in_app: true },
            ],
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
