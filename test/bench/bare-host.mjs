// The floor of the embedded-footprint benchmark: the least a host on the same stack does before its
// first answer, without Faultline. Node starts, loads Express and the database driver, opens the
// same database the demo would (PGlite on FAULTLINE_DATA_DIR with the shared_buffers Faultline
// sets, src/db/pglite.ts; or `pg` on DATABASE_URL), runs one query, and answers GET /health on
// HOST:PORT. Spawned by demo-host.mjs in place of the demo, so both are timed the same way.
// Ctrl-C / SIGTERM close the database and exit.
import express from "express";

const dataDir = process.env.FAULTLINE_DATA_DIR;
const databaseUrl = process.env.DATABASE_URL;

async function openDatabase() {
  if (databaseUrl) {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    await pool.query("SELECT 1");
    return () => pool.end();
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create({
    dataDir,
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  });
  await pglite.query("SELECT 1");
  return () => pglite.close();
}

const close = await openDatabase();
const app = express();
app.get("/health", (_req, res) => res.json({ ok: true }));
const server = app.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1");
server.on("error", (error) => {
  process.stderr.write(`bare-host: ${error.message}\n`);
  process.exit(1);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    server.close();
    await close();
    process.exit(0);
  });
}
