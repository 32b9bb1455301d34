// An existing Express app — its own routes and its own express.json() — with Faultline mounted
// under /faultline. Run it with `npm run example:express` (builds the library when needed).
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import express from "express";
import { createFaultline } from "faultline";
import { toExpressHandler, keepRawBody } from "faultline/express";
import { seedDemo } from "../shared/seed-demo.mjs";

/** The host app. Its JSON parser runs first and keeps the raw bytes, which Faultline then uses. */
export function createHostApp(faultline) {
  const app = express();
  app.use(express.json({ verify: keepRawBody }));
  app.get("/health", (_req, res) => res.json({ ok: true }));
  app.post("/api/orders", (req, res) => res.status(201).json({ order: req.body }));
  app.use("/faultline", toExpressHandler(faultline));
  return app;
}

/**
 * Starts the host on `port` (0: any free port); `faultline` defaults to one on DATABASE_URL, else a
 * throwaway in-memory PGlite for trying the example (an app of yours leaves `database` out to get
 * DATABASE_URL or a data directory on disk: docs/storage.md).
 */
export async function start({ port = 3000, host = "127.0.0.1", faultline = createFaultline({ database: process.env.DATABASE_URL || "memory://" }) } = {}) {
  const { token } = await seedDemo(faultline, process.env.FAULTLINE_TOKEN);
  const server = createHostApp(faultline).listen(port, host);
  await once(server, "listening");
  const url = `http://${host}:${server.address().port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await faultline.close();
  };
  return { url, token, faultline, close };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, token, close } = await start({ port: Number(process.env.PORT ?? 3000) });
  console.log(`express host on ${url} — Faultline under ${url}/faultline`);
  console.log(`token: ${token}\nDSN:   curl -H "Authorization: Bearer ${token}" ${url}/faultline/api/0/projects/demo/web/keys/`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void close().then(() => process.exit(0)));
}
