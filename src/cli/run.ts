import "reflect-metadata";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bootstrapCommand } from "./bootstrap.js";
import { type CliCommand, type CliIo, UsageError } from "./io.js";
import { migrateCommand } from "./migrate.js";
import { retentionCommand } from "./retention.js";
import { workerCommand } from "./worker.js";

export type { CliIo } from "./io.js";

/** Every `faultline <command>`, one file each; add a command with one line here. */
const COMMANDS: Record<string, CliCommand> = {
  migrate: migrateCommand,
  bootstrap: bootstrapCommand,
  worker: workerCommand,
  retention: retentionCommand,
};

function usage(): string {
  const lines = Object.values(COMMANDS).map((command) => `  ${command.summary}`);
  return `Usage: faultline <command> [options]      (faultline <command> --help for its options)

Commands:
${lines.join("\n")}

  --version          print the version
  --help             print this help`;
}

const processIo: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) };

/** Ends `faultline worker` (SIGTERM or SIGINT in the real command line). */
function untilSignal(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => controller.abort());
  return controller.signal;
}

/** The version in Faultline's own package.json, found from this file upwards (src/cli/ in the sources, dist/ when built). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === "faultline" && manifest.version) return manifest.version;
    } catch {
      // no package.json here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}

/** Runs the `faultline` command line; resolves to the exit code. `stop` ends a `worker` run (default: SIGTERM/SIGINT). */
export async function runCli(argv: string[], io: CliIo = processIo, stop?: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    // Only the global flags before a command.
    const { values } = parseArgs({
      args: argv,
      options: { version: { type: "boolean", short: "v" }, help: { type: "boolean", short: "h" } },
      strict: false,
    });
    if (values.version) {
      io.out(`${packageVersion()}\n`);
      return 0;
    }
    if (values.help) {
      io.out(`${usage()}\n`);
      return 0;
    }
    io.err(
      `${name === undefined ? "faultline: give a command" : `faultline: unknown command "${name}"`}\n\n${usage()}\n`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io, stop ?? (command.longRunning ? untilSignal() : new AbortController().signal));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`faultline ${name}: ${error.message}\n\n${command.usage}\n`);
    return 2;
  }
}
