// An existing Fastify app with its own JSON routes, and Faultline registered under /faultline.
// Run it with `npm run example:fastify` (builds the library when needed).
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { createFaultline } from "faultline";
import { toFastifyPlugin } from "faultline/fastify";
import { seedDemo } from "../shared/seed-demo.mjs";

/** The host app: Fastify's own JSON parser serves its routes; Faultline's Buffer parser stays inside its prefix. */
export function createHostApp(faultline) {
  const app = Fastify();
  app.get("/health", async () => ({ ok: true }));
  app.post("/api/orders", async (request, reply) => reply.code(201).send({ order: request.body }));
  app.register(toFastifyPlugin(faultline), { prefix: "/faultline" });
  return app;
}

/**
 * Starts the host on `port` (0: any free port); `faultline` defaults to one on DATABASE_URL, else a
 * throwaway in-memory PGlite for trying the example (an app of yours leaves `database` out to get
 * DATABASE_URL or a data directory on disk: docs/storage.md).
 */
export async function start({ port = 3000, host = "127.0.0.1", faultline = createFaultline({ database: process.env.DATABASE_URL || "memory://" }) } = {}) {
  const { token } = await seedDemo(faultline, process.env.FAULTLINE_TOKEN);
  const app = createHostApp(faultline);
  const url = await app.listen({ port, host });
  const close = async () => {
    await app.close();
    await faultline.close();
  };
  return { url, token, faultline, close };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, token, close } = await start({ port: Number(process.env.PORT ?? 3000) });
  console.log(`fastify host on ${url} — Faultline under ${url}/faultline`);
  console.log(`token: ${token}\nDSN:   curl -H "Authorization: Bearer ${token}" ${url}/faultline/api/0/projects/demo/web/keys/`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void close().then(() => process.exit(0)));
}
