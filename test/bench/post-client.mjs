// A closed-loop ingest client in its own process: `node post-client.mjs <envelope-url> <concurrency> <events>`
// posts <events> single-event envelopes (the bench event, 50 fingerprints) over keep-alive
// connections and prints {"rps", "failed"}.
import { Agent, request } from "node:http";
import { randomUUID } from "node:crypto";

const [url, concurrency = "32", total = "20000"] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });

function envelope(i) {
  const group = i % 50;
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
  return `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(event)}`;
}

function post(body) {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

const bodies = Array.from({ length: Number(total) }, (_, i) => envelope(i));
let next = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < bodies.length) if ((await post(bodies[next++])) !== 200) failed += 1;
  }),
);
process.stdout.write(JSON.stringify({ rps: Math.round(bodies.length / ((performance.now() - started) / 1000)), failed }));
agent.destroy();
