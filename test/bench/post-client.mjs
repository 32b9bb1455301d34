// A closed-loop ingest client in its own process: `node post-client.mjs <envelope-url> <concurrency> <events>`
// posts <events> single-event envelopes (the bench event, 50 fingerprints) over keep-alive
// connections and prints {"rps", "failed"}.
import { Agent, request } from "node:http";
import { benchEnvelope } from "./bench-envelope.mjs";

const [url, concurrency = "32", total = "20000"] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });

function post(body) {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

const bodies = Array.from({ length: Number(total) }, (_, i) => benchEnvelope(i).body);
let next = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < bodies.length) if ((await post(bodies[next++])) !== 200) failed += 1;
  }),
);
process.stdout.write(
  JSON.stringify({ rps: Math.round(bodies.length / ((performance.now() - started) / 1000)), failed }),
);
agent.destroy();
