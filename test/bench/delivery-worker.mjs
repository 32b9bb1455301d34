// One delivery worker process for the delivery benchmark: the built package, worker on, no HTTP.
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
process.send?.("ready");
process.on("message", async (message) => {
  if (message === "stop") {
    await faultline.close();
    process.exit(0);
  }
});
