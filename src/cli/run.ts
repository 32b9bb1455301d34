import "reflect-metadata";
import { parseArgs } from "node:util";
import { createFaultline } from "../index.js";
import { silentLogger } from "../logging/logger.js";
import { RETENTION_USAGE, runRetentionCommand } from "./retention.js";

const USAGE = `Usage: faultline migrate --database-url <postgres://…> [--schema faultline]
       faultline migrate --data-dir <path>            (embedded PGlite on disk)
       faultline worker --database-url <postgres://…> [--schema faultline]
${RETENTION_USAGE}

migrate: applies pending Faultline migrations. Safe to run repeatedly: prints what it applied.
worker:  runs the background tasks (the ingest digest, webhook deliveries, purges, snooze expiry)
         of the first-party plugins with default options until SIGTERM or SIGINT. Hosts with
         plugins or options of their own run a script instead (docs/operations.md).
DATABASE_URL is used when --database-url is not given.`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) };

/** Ends `faultline worker` (SIGTERM or SIGINT in the real command line). */
function untilSignal(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => controller.abort());
  return controller.signal;
}

/** Runs the `faultline` command line; resolves to the exit code. `stop` ends a `worker` run (default: SIGTERM/SIGINT). */
export async function runCli(argv: string[], io: CliIo = processIo, stop?: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
      schema: { type: "string" },
      days: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (command === "retention" && !values.help) {
    const dataDir = values["data-dir"];
    const database = values["database-url"] ?? process.env.DATABASE_URL ?? (dataDir ? { dataDir } : undefined);
    return runRetentionCommand({ subcommand: positionals[1], database, schema: values.schema, days: values.days }, io);
  }
  if (values.help || (command !== "migrate" && command !== "worker")) {
    io.out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const url = values["database-url"] ?? process.env.DATABASE_URL;
  const dataDir = values["data-dir"];
  if (command === "worker") {
    // An embedded PGlite belongs to one process: a worker of its own needs PostgreSQL.
    if (!url) {
      io.err(`faultline: the worker needs --database-url (PostgreSQL)\n\n${USAGE}\n`);
      return 2;
    }
    return runWorker(url, values.schema, io, stop ?? untilSignal());
  }
  if (!url && !dataDir) {
    io.err(`faultline: give --database-url or --data-dir\n\n${USAGE}\n`);
    return 2;
  }
  const faultline = createFaultline({
    database: url ?? { dataDir: dataDir as string },
    schema: values.schema,
    autoMigrate: false,
    logger: silentLogger,
  });
  try {
    const { applied } = await faultline.migrate();
    io.out(applied.length === 0 ? "faultline: already up to date\n" : applied.map((name) => `applied ${name}\n`).join(""));
    return 0;
  } finally {
    await faultline.close();
  }
}


/**
 * `faultline worker`: the first-party background tasks in a process of their own, with default
 * options. Waking on commits: `ready()` LISTENs for delivery NOTIFYs; the ingest digest polls the
 * queue every 250 ms. Migrations are left to `faultline migrate` (or the web processes).
 */
async function runWorker(url: string, schema: string | undefined, io: CliIo, stop: AbortSignal): Promise<number> {
  const faultline = createFaultline({ database: url, schema, autoMigrate: false });
  // The worker's timers are unref'd (they never hold a host's process open): this one does.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await faultline.ready();
    io.out(`faultline: worker running on schema ${schema ?? "faultline"}\n`);
    if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
    return 0;
  } finally {
    clearInterval(keepAlive);
    await faultline.close();
    io.out("faultline: worker stopped\n");
  }
}
