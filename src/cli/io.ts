import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { createFaultline } from "../index.js";
import type { Faultline } from "../faultline.js";
import type { FaultlineApi, FaultlineOptions } from "../index.js";

/** Where a command writes. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** One `faultline <name>` command: its own options, parsed from the arguments after its name. */
export interface CliCommand {
  /** One line for the overall usage. */
  summary: string;
  /** Its own usage text (`faultline <name> --help`). */
  usage: string;
  /** Runs until stopped: the real CLI ends it on SIGTERM/SIGINT (other commands keep Node's default signal handling). */
  longRunning?: boolean;
  /** Resolves to the exit code; `stop` ends a long-running command. */
  run(args: string[], io: CliIo, stop: AbortSignal): Promise<number>;
}

/** Thrown for a usage mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

/** What {@link parseCommandArgs} found: each option's value (string or boolean, by its type), and the positionals. */
export interface CommandArgs<T extends CommandOptions> {
  values: {
    [K in keyof T]:
      (T[K]["type"] extends "boolean" ? boolean : string) | (T[K] extends { default: unknown } ? never : undefined);
  } & { help?: boolean };
  positionals: string[];
}

type CommandOptions = Record<string, { type: "string" | "boolean"; short?: string; default?: string | boolean }>;

/** parseArgs, strict, with a usage mistake as a {@link UsageError}. */
export function parseCommandArgs<T extends CommandOptions>(args: string[], options: T): CommandArgs<T> {
  try {
    const config: ParseArgsConfig = {
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    };
    return parseArgs(config) as CommandArgs<T>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The options every database command takes. */
export const DATABASE_OPTIONS = {
  "database-url": { type: "string" },
  "data-dir": { type: "string" },
  create: { type: "boolean" },
  schema: { type: "string" },
} as const;

export const DATABASE_USAGE = `Database: --database-url <postgres://…> (default: DATABASE_URL) or --data-dir <path> (embedded PGlite on disk:
          an existing data directory, such as .faultline/data; --create starts a new one there);
          --schema <name> (default: faultline).`;

interface DatabaseValues {
  "database-url"?: string;
  "data-dir"?: string;
  create?: boolean;
  schema?: string;
}

/**
 * The database a command works on: `--database-url`, else `--data-dir`, else `DATABASE_URL`.
 * Required: a command line that changes data names where (the library's default data directory
 * is relative to the host's working directory, which an operator's shell need not share).
 */
export function commandDatabase(values: DatabaseValues): Pick<FaultlineOptions, "database" | "schema"> {
  const url = values["database-url"];
  const dataDir = values["data-dir"];
  if (url !== undefined && dataDir !== undefined) throw new UsageError("give --database-url or --data-dir, not both");
  if (values.create && dataDir === undefined)
    throw new UsageError("--create applies to --data-dir only (PostgreSQL databases are created by PostgreSQL)");
  if (dataDir !== undefined) checkDataDir(resolve(dataDir), values.create === true);
  const database = url ?? (dataDir !== undefined ? { dataDir } : process.env.DATABASE_URL || undefined);
  if (database === undefined) throw new UsageError("give --database-url or --data-dir (or set DATABASE_URL)");
  return { database, schema: values.schema };
}

/**
 * A command works on an existing PGlite cluster only (unless --create): the library creates a
 * missing directory on open, so a typo, or the parent of the real directory, would otherwise be
 * given a new empty database that then reports "already up to date".
 */
function checkDataDir(dataDir: string, create: boolean): void {
  if (create || existsSync(join(dataDir, "PG_VERSION"))) return;
  // The likely mistake: the directory above the cluster (.faultline instead of .faultline/data).
  const inside = existsSync(join(dataDir, "data", "PG_VERSION"))
    ? ` It holds one in ${join(dataDir, "data")}: did you mean --data-dir ${join(dataDir, "data")}?`
    : "";
  const what = existsSync(dataDir) ? "holds no embedded database (no PG_VERSION file)" : "does not exist";
  throw new UsageError(
    `--data-dir ${dataDir} ${what}.${inside} Give the data directory of an existing embedded database (the library's default is .faultline/data), or add --create to start a new one there.`,
  );
}

/** An instance for one command: no background work, and the command's own logging only. */
export function commandFaultline(
  values: DatabaseValues,
  options: Partial<FaultlineOptions> = {},
): Faultline<FaultlineApi> {
  return createFaultline({
    ...commandDatabase(values),
    worker: false,
    autoMigrate: false,
    logger: quietLogger,
    ...options,
  });
}

/** Warnings and errors still reach stderr: a command that fails says why. */
const quietLogger = {
  debug() {},
  info() {},
  warn: (obj: object | string, msg?: string) =>
    void process.stderr.write(`faultline: ${msg ?? (typeof obj === "string" ? obj : "")}\n`),
  error: (obj: object | string, msg?: string) =>
    void process.stderr.write(`faultline: ${msg ?? (typeof obj === "string" ? obj : "")}\n`),
};
