// A keep-alive HTTP load generator in its own process (so it does not share the server's event
// loop): `node load-client.mjs <url> <concurrency> <seconds> [headers-json]` prints
// {"requests", "rps", "p50", "p99", "errors", "warmup"} (latencies in ms) after a one-second
// warm-up of "warmup" requests.
import { Agent, request } from "node:http";

const [url, concurrency = "32", seconds = "5", headersJson = "{}"] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const headers = JSON.parse(headersJson);

function once() {
  return new Promise((resolve) => {
    const started = performance.now();
    request(url, { agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ms: performance.now() - started, ok: res.statusCode === 200 }));
    })
      .on("error", () => resolve({ ms: performance.now() - started, ok: false }))
      .end();
  });
}

async function run(ms, record) {
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (performance.now() < deadline) record(await once());
    }),
  );
}

let warmup = 0;
await run(1000, () => (warmup += 1));
const latencies = [];
let errors = 0;
const started = performance.now();
await run(Number(seconds) * 1000, ({ ms, ok }) => (ok ? latencies.push(ms) : (errors += 1)));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    errors,
    warmup,
  }),
);
agent.destroy();
