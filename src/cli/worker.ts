import { createFaultline } from "../index.js";
import { type CliCommand, commandDatabase, parseCommandArgs, UsageError } from "./io.js";

/**
 * `faultline worker`: the first-party background tasks in a process of their own, with default
 * options. Waking on commits: `ready()` LISTENs for delivery NOTIFYs; the ingest digest polls the
 * queue every 250 ms. Migrations are left to `faultline migrate` (or the web processes).
 */
export const workerCommand: CliCommand = {
  longRunning: true,
  summary: "worker             run the background tasks until SIGTERM or SIGINT (PostgreSQL)",
  usage: `Usage: faultline worker --database-url <postgres://…> [--schema faultline]

Runs the background tasks (the ingest digest, webhook deliveries, purges, snooze expiry) of the
first-party plugins with default options until SIGTERM or SIGINT. Hosts with plugins or options
of their own run a script instead (docs/operations.md). DATABASE_URL is used when --database-url
is not given. An embedded PGlite belongs to one process, so a worker of its own needs PostgreSQL.`,
  async run(args, io, stop) {
    const { values } = parseCommandArgs(args, { "database-url": { type: "string" }, schema: { type: "string" } });
    const { database, schema } = commandDatabase(values);
    if (typeof database !== "string" || database === "memory://")
      throw new UsageError("the worker needs --database-url (PostgreSQL)");
    const faultline = createFaultline({ database, schema, autoMigrate: false });
    // The worker's timers are unref'd (they never hold a host's process open): this one does.
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      await faultline.ready();
      io.out(`faultline: worker running on schema ${schema ?? "faultline"}\n`);
      if (!stop.aborted)
        await new Promise<void>((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
      return 0;
    } finally {
      clearInterval(keepAlive);
      await faultline.close();
      io.out("faultline: worker stopped\n");
    }
  },
};
