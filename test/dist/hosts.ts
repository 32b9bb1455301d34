// Shared by the tests that install the packed tarball into fresh apps (packed-tarball.test.ts,
// guides.test.ts): the tarball packed once per run (global-setup.ts), a fresh app installed from
// it, and a host process started on a free port and waited for.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";
// @ts-expect-error: plain JavaScript helper without type declarations
import { freePort as untypedFreePort } from "../../scripts/free-port.mjs";

export const run = promisify(execFile);
const BIG_OUTPUT = 16 * 2 ** 20;

/** The packed tarball of this checkout, written once for the whole run by global-setup.ts. */
export const packedTarball = (): string => inject("packedTarball");

/** What a host prints when Faultline's ingest could not use its worker thread (docs/ingest.md, "When ingest stays inline"). */
export const INGEST_WORKER_UNUSED = /ingest worker thread could not start|ingest worker's file is not beside/;

export const freePort = (host?: string): Promise<number> => untypedFreePort(host) as Promise<number>;

export interface FreshApp {
  /** package.json fields besides name and private; none: what `npm init -y` writes (no "type", so CommonJS). */
  packageJson?: Record<string, unknown>;
  /** Files written before the install, by path relative to the app. */
  files: Record<string, string>;
  /** Installed from the npm registry beside the tarball (`--prefer-offline`: the cache when it has them). */
  dependencies: string[];
}

const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);

/**
 * Writes the app into `dir` and installs the packed tarball with `dependencies`. `--ignore-scripts`:
 * nothing here needs an install script, and none of the dependencies' get to run. Returns the
 * seconds it took, for the log (what this costs CI).
 */
export async function installFreshApp(dir: string, app: FreshApp): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: `host-${dir.split("/").pop()}`, version: "1.0.0", private: true, ...app.packageJson }));
  for (const [path, text] of Object.entries(app.files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const started = performance.now();
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", packedTarball(), ...app.dependencies], { cwd: dir, maxBuffer: BIG_OUTPUT });
  return seconds(started, performance.now());
}

/** `next build` in an installed app (offline, no telemetry); the seconds it took. */
export async function nextBuild(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const started = performance.now();
  await run(process.execPath, ["node_modules/next/dist/bin/next", "build"], { cwd: dir, env: { ...env, NEXT_TELEMETRY_DISABLED: "1" }, maxBuffer: BIG_OUTPUT }).catch(
    // Next prints why (a type error and where) on stdout; the error's message only says "Failed to type check".
    (error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`next build failed in ${dir}:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`, { cause: error });
    },
  );
  return seconds(started, performance.now());
}

export interface Host {
  process: ChildProcess;
  port: number;
  /** Everything the host printed so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s: a host that ignores it must not outlive the test). */
  stop(): Promise<void>;
}

/**
 * Runs `node <args…>` in `cwd` with `PORT` set to a free port (`portArg`: also appended to the
 * arguments, as `next start -p` wants), and resolves once `ready` says so. Rejects with the host's
 * output when it exits first or `timeoutMs` passes.
 */
export async function startHost(options: {
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  portArg?: boolean;
  ready: (host: Host) => Promise<boolean> | boolean;
  timeoutMs?: number;
}): Promise<Host> {
  const port = await freePort();
  const child = spawn(process.execPath, [...options.args, ...(options.portArg ? [String(port)] : [])], { cwd: options.cwd, env: { ...options.env, PORT: String(port) } });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const host: Host = {
    process: child,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (await options.ready(host)) return host;
    if (child.exitCode !== null || Date.now() > deadline) {
      await host.stop();
      throw new Error(`the host did not come up (${child.exitCode === null ? "timed out" : `exit code ${child.exitCode}`}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
