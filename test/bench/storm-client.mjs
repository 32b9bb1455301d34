// An open-loop ingest load generator in its own process: POSTs error envelopes at a fixed rate
// whatever the server's latency (as a fleet of SDKs does in an error storm), while probing a host
// route once every 20 ms on a connection of its own.
// `node storm-client.mjs <ingest-url> <events-per-second> <seconds> [probe-url]` prints one JSON line:
// {"sent", "statuses": {"200": n, "429": n, …}, "ingest": {p50, p99}, "probe": {count, p50, p99, max},
//  "acks": [[eventId, epochMs], …]} (acks only for 200s; latencies in ms).
import { Agent, request } from "node:http";
import { benchEnvelope } from "./bench-envelope.mjs";

const [url, rateArg, secondsArg, probeUrl] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
const epochNow = () => performance.timeOrigin + performance.now();

function send(target, options, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(target, options, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on("error", () => resolve({ status: "error", ms: performance.now() - started }));
    req.end(body);
  });
}

const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null;
const summary = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: at(sorted, 0.5), p99: at(sorted, 0.99), max: sorted.at(-1) ?? null };
};

const total = Math.round(rate * seconds);
const bodies = Array.from({ length: total }, (_, i) => benchEnvelope(i));
const statuses = {};
const ingestLatencies = [];
const acks = [];
const inFlight = [];
const started = performance.now();
let sent = 0;
let probing = Boolean(probeUrl);
const probeLatencies = [];
const probe = (async () => {
  while (probing) {
    const { status, ms } = await send(probeUrl, { agent: probeAgent }, undefined);
    probeLatencies.push(status === 200 ? ms : Number.POSITIVE_INFINITY);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
})();
// Every millisecond, send what the rate owes by now: the schedule never waits for answers.
await new Promise((resolve) => {
  const tick = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    while (sent < due) {
      const { eventId, body } = bodies[sent++];
      inFlight.push(
        send(url, { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } }, body).then(
          ({ status, ms }) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            ingestLatencies.push(ms);
            if (status === 200) acks.push([eventId, epochNow()]);
          },
        ),
      );
    }
    if (sent >= total) {
      clearInterval(tick);
      resolve();
    }
  }, 1);
});
await Promise.all(inFlight);
probing = false;
await probe;
agent.destroy();
probeAgent.destroy();
const ingest = summary(ingestLatencies);
process.stdout.write(
  JSON.stringify({
    sent,
    statuses,
    ingest: { p50: ingest.p50, p99: ingest.p99 },
    probe: summary(probeLatencies),
    acks,
  }),
);
