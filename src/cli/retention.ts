import {
  type CliCommand,
  commandFaultline,
  DATABASE_OPTIONS,
  DATABASE_USAGE,
  parseCommandArgs,
  UsageError,
} from "./io.js";

/** `faultline retention run`: one full retention run now, printed. */
export const retentionCommand: CliCommand = {
  summary: "retention run      expire events past retention now and print what was dropped",
  usage: `Usage: faultline retention run [--days 90] [database options]

retention run: expires events past retention now (what the worker's hourly issues.retention task
               does), creates the coming weeks' partitions, and prints what it dropped. --days is the
               default retention (the host's retention.days option); projects' own overrides apply.
${DATABASE_USAGE}`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { ...DATABASE_OPTIONS, days: { type: "string" } });
    if (positionals[0] !== "run" || positionals.length > 1) throw new UsageError(`expected "retention run"`);
    const days = values.days === undefined ? undefined : Number(values.days);
    if (days !== undefined && !(Number.isInteger(days) && days > 0))
      throw new UsageError("--days must be a whole number of days");
    const faultline = commandFaultline(values, days === undefined ? {} : { retention: { days } });
    try {
      await faultline.ready();
      const report = await faultline.api.retention.run();
      if (!report.ran) {
        io.out("faultline: retention is running in another process; nothing done\n");
        return 0;
      }
      // Expired issues were only hidden: delete their rows now rather than leave it to a worker;
      // queued events the digest gave up on expire with their project's retention too.
      await faultline.worker.runDue("issues.purge");
      await faultline.worker.runDue("ingest.queue-leftovers");
      const lines = [
        ...report.partitionsDropped.map((name) => `dropped partition ${name}`),
        ...report.partitionsCreated.map((name) => `created partition ${name}`),
        `deleted ${report.eventsDeleted} events row by row (shorter project retention, default partition)`,
        `expired ${report.issuesExpired} issues`,
        `deleted ${report.statsDeleted} hourly/daily counters`,
        "deleted the failed queued events past retention",
      ];
      io.out(`${lines.join("\n")}\n`);
      return 0;
    } finally {
      await faultline.close();
    }
  },
};
