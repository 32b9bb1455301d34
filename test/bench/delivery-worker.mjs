// One worker process of the built package (worker on, no HTTP): the delivery benchmark's delivery
// workers, and the storm benchmark's separate digest (BENCH_DIGEST=process). Answers "cpu" with its
// CPU time so far (µs), so the delivery benchmark can charge the drain alone.
import { createFaultline } from "../../dist/index.js";

const [url, schema] = process.argv.slice(2);
const faultline = createFaultline({
  database: url,
  schema,
  autoMigrate: false,
  logger: { debug() {}, info() {}, warn() {}, error: (o, m) => process.stderr.write(`${m} ${JSON.stringify(o)}\n`) },
  delivery: { allowPrivateNetworks: true, concurrency: 64, pollIntervalMs: 50 },
});
await faultline.ready();
process.send?.({ ready: true });
process.on("message", async (message) => {
  if (message === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
  if (message === "stop") {
    await faultline.close();
    process.exit(0);
  }
});
