import { createFaultline } from "../index.js";
import { silentLogger } from "../logging/logger.js";
import type { DatabaseInput } from "../db/connect.js";

export const RETENTION_USAGE = `       faultline retention run --database-url <postgres://…> [--schema faultline] [--days 90]
       faultline retention run --data-dir <path> [--days 90]

retention run: expires events past retention now (what the worker's hourly issues.retention task
         does), creates the coming weeks' partitions, and prints what it dropped. --days is the
         default retention (the host's retention.days option); projects' own overrides apply.`;

interface RetentionCliIo {
  out(text: string): void;
  err(text: string): void;
}

/** `faultline retention run`: one full retention run, printed. Exit code 0, or 2 on bad arguments. */
export async function runRetentionCommand(
  args: { subcommand: string | undefined; database: DatabaseInput | undefined; schema: string | undefined; days: string | undefined },
  io: RetentionCliIo,
): Promise<number> {
  const days = args.days === undefined ? undefined : Number(args.days);
  if (args.subcommand !== "run" || !args.database || (days !== undefined && !Number.isInteger(days))) {
    io.err(`faultline: usage:\n${RETENTION_USAGE}\n`);
    return 2;
  }
  const faultline = createFaultline({
    database: args.database,
    schema: args.schema,
    autoMigrate: false,
    worker: false,
    logger: silentLogger,
    ...(days !== undefined && { retention: { days } }),
  });
  try {
    await faultline.ready();
    const report = await faultline.api.retention.run();
    if (!report.ran) {
      io.out("faultline: retention is running in another process; nothing done\n");
      return 0;
    }
    // Expired issues were only hidden: delete their rows now rather than leave it to a worker.
    await faultline.worker.runDue("issues.purge");
    const lines = [
      ...report.partitionsDropped.map((name) => `dropped partition ${name}`),
      ...report.partitionsCreated.map((name) => `created partition ${name}`),
      `deleted ${report.eventsDeleted} events row by row (shorter project retention, default partition)`,
      `expired ${report.issuesExpired} issues`,
      `deleted ${report.statsDeleted} hourly/daily counters and ${report.queueRowsDeleted} failed queued events`,
    ];
    io.out(`${lines.join("\n")}\n`);
    return 0;
  } finally {
    await faultline.close();
  }
}
