import {
  type CliCommand,
  commandFaultline,
  DATABASE_OPTIONS,
  DATABASE_USAGE,
  parseCommandArgs,
  UsageError,
} from "./io.js";

/** `faultline migrate` applies pending migrations; `faultline migrate status` lists applied and pending ones. */
export const migrateCommand: CliCommand = {
  summary: "migrate [status]   apply pending migrations, or list applied and pending ones",
  usage: `Usage: faultline migrate [status] [database options]

migrate:         applies pending Faultline migrations. Safe to run repeatedly: prints what it applied.
migrate status:  lists applied and pending migrations; exit code 0 when up to date, 1 when some are pending.
${DATABASE_USAGE}`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, DATABASE_OPTIONS);
    const [sub, ...extra] = positionals;
    if ((sub !== undefined && sub !== "status") || extra.length > 0)
      throw new UsageError(`unknown argument "${sub === "status" ? extra[0] : sub}"`);
    const faultline = commandFaultline(values);
    try {
      if (sub === "status") {
        const { applied, pending } = await faultline.migrationStatus();
        io.out(
          [...applied.map((name) => `applied  ${name}\n`), ...pending.map((name) => `pending  ${name}\n`)].join(""),
        );
        io.out(
          pending.length === 0
            ? "faultline: up to date\n"
            : `faultline: ${pending.length} pending (run \`faultline migrate\`)\n`,
        );
        return pending.length === 0 ? 0 : 1;
      }
      const { applied } = await faultline.migrate();
      io.out(
        applied.length === 0 ? "faultline: already up to date\n" : applied.map((name) => `applied ${name}\n`).join(""),
      );
      return 0;
    } finally {
      await faultline.close();
    }
  },
};
