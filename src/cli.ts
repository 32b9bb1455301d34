#!/usr/bin/env node
import "reflect-metadata";
import { parseArgs } from "node:util";
import { createFaultline } from "./index.js";
import { silentLogger } from "./logging/logger.js";

const USAGE = `Usage: faultline migrate --database-url <postgres://…> [--schema faultline]
       faultline migrate --data-dir <path>            (embedded PGlite on disk)

Applies pending Faultline migrations. Safe to run repeatedly: prints what it applied.
DATABASE_URL is used when --database-url is not given.`;

async function main(argv: string[]): Promise<number> {
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
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const url = values["database-url"] ?? process.env.DATABASE_URL;
  const dataDir = values["data-dir"];
  if (!url && !dataDir) {
    process.stderr.write(`faultline: give --database-url or --data-dir\n\n${USAGE}\n`);
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
    process.stdout.write(applied.length === 0 ? "faultline: already up to date\n" : applied.map((name) => `applied ${name}\n`).join(""));
    return 0;
  } finally {
    await faultline.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`faultline: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
