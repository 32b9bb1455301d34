import "reflect-metadata";
import { parseArgs } from "node:util";
import { createFaultline } from "../index.js";
import { silentLogger } from "../logging/logger.js";

const USAGE = `Usage: faultline migrate --database-url <postgres://…> [--schema faultline]
       faultline migrate --data-dir <path>            (embedded PGlite on disk)

Applies pending Faultline migrations. Safe to run repeatedly: prints what it applied.
DATABASE_URL is used when --database-url is not given.`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) };

/** Runs the `faultline` command line; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
      schema: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals[0] !== "migrate") {
    io.out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const url = values["database-url"] ?? process.env.DATABASE_URL;
  const dataDir = values["data-dir"];
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

