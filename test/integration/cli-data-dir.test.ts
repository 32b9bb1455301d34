import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirLockedError, LOCK_FILE_NAME } from "../../src/db/data-dir-lock.js";
import { createFaultline } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { bundleFixture } from "../helpers/bundle.js";
import { waitFor } from "../helpers/wait.js";

/** The real command line in a process of its own: exit code, stdout, stderr. */
function faultlineCli(file: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { DATABASE_URL: _unset, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { env, timeout: 170_000 }, (error, out, err) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, out, err });
    });
  });
}

// Embedded data directories only: the same on either test backend, so run once (the PGlite project).
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
  "an embedded data directory given to the command line, and its lock (#27)",
  () => {
    let cli: Awaited<ReturnType<typeof bundleFixture>>;
    let holder: Awaited<ReturnType<typeof bundleFixture>>;
    let work: string;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      [cli, holder] = await Promise.all([bundleFixture("faultline-cli"), bundleFixture("data-dir-holder")]);
      work = await mkdtemp(join(tmpdir(), "faultline-datadir-"));
    });
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await Promise.all([cli?.remove(), holder?.remove(), rm(work, { recursive: true, force: true })]);
    });

    it(
      "refuses a --data-dir that holds no embedded database (creating nothing), names the likely one, and --create starts one",
      { timeout: 240_000 },
      async () => {
        const typo = join(work, "typo");
        const missing = await faultlineCli(cli.file, ["migrate", "--data-dir", typo]);
        expect(missing.code).toBe(2);
        expect(missing.err).toContain(`faultline migrate: --data-dir ${typo} does not exist.`);
        expect(missing.err).toContain("or add --create to start a new one there");
        expect(existsSync(typo)).toBe(false);

        const empty = join(work, "empty");
        await mkdir(empty);
        for (const command of [["migrate", "status"], ["bootstrap"], ["retention", "run"]]) {
          const refused = await faultlineCli(cli.file, [...command, "--data-dir", empty]);
          expect(refused.code).toBe(2);
          expect(refused.err).toContain(`--data-dir ${empty} holds no embedded database (no PG_VERSION file).`);
        }
        expect((await faultlineCli(cli.file, ["migrate", "--database-url", "postgres://x/y", "--create"])).err).toMatch(
          /^faultline migrate: --create applies to --data-dir only/,
        );

        // storage.md's old example: the directory above the library's (and now the demo's) .faultline/data.
        const home = join(work, ".faultline");
        const data = join(home, "data");
        const created = await faultlineCli(cli.file, ["migrate", "--data-dir", data, "--create"]);
        expect(created.err).toBe("");
        expect(created.code).toBe(0);
        expect(existsSync(join(data, "PG_VERSION"))).toBe(true);
        expect(await faultlineCli(cli.file, ["migrate", "status", "--data-dir", data])).toMatchObject({
          code: 0,
          out: expect.stringMatching(/faultline: up to date\n$/),
        });
        const parent = await faultlineCli(cli.file, ["migrate", "--data-dir", home]);
        expect(parent.code).toBe(2);
        expect(parent.err).toContain(`It holds one in ${data}: did you mean --data-dir ${data}?`);
      },
    );

    it(
      "a second process gets an error naming the process that has the directory open; a lock left by a killed process is taken over",
      { timeout: 300_000 },
      async () => {
        const dir = join(work, "held");
        const child = spawn(process.execPath, [holder.file], {
          env: { ...process.env, HOLD_DATA_DIR: dir },
          stdio: ["ignore", "pipe", "pipe"],
        });
        children.push(child);
        let output = "";
        child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
        child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
        await waitFor(
          async () => {
            if (child.exitCode !== null) throw new Error(`the holder exited (code ${child.exitCode}): ${output}`);
            return output.includes("READY");
          },
          180_000,
          "the holder to open its data directory",
        );
        const lock = JSON.parse(await readFile(join(dir, LOCK_FILE_NAME), "utf8")) as {
          pid: number;
          hostname: string;
          command: string;
          startedAt: string;
        };
        expect(lock).toMatchObject({ pid: child.pid, hostname: hostname() });
        expect(lock.command).toMatch(/^node .*data-dir-holder\.mjs$/);

        // The CLI (bootstrap "succeeded" into a directory the app had open): refused, naming the app.
        const refused = await faultlineCli(cli.file, ["bootstrap", "--data-dir", dir]);
        expect(refused.code).toBe(1);
        expect(refused.err).toContain(
          `faultline: Faultline's embedded data directory ${dir} is open in process ${child.pid} (${lock.command}) since ${lock.startedAt}: `,
        );
        expect(refused.err).toContain(
          "Stop that process, or use a PostgreSQL database to share data between processes",
        );
        expect(refused.out).toBe("");
        // A host of the library, the same.
        const second = createFaultline({ database: { dataDir: dir }, worker: false, logger: silentLogger });
        const failure = await second.ready().then(
          () => null,
          (error: unknown) => error,
        );
        await second.close();
        expect(failure).toBeInstanceOf(DataDirLockedError);
        expect((failure as DataDirLockedError).holder.pid).toBe(child.pid);

        // Killed without a chance to clean up: the lock file stays, its process is gone.
        child.kill("SIGKILL");
        await waitFor(async () => child.signalCode !== null, 10_000, "the holder to die");
        expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
        const after = await faultlineCli(cli.file, ["migrate", "status", "--data-dir", dir]);
        expect(after.err).toBe("");
        expect(after.code).toBe(0);
        expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false); // released when the command closed

        // In one process: a second instance on the directory is refused while the first is open, not after.
        const first = createFaultline({ database: { dataDir: dir }, worker: false, logger: silentLogger });
        await first.ready();
        const twin = createFaultline({ database: { dataDir: dir }, worker: false, logger: silentLogger });
        await expect(twin.ready()).rejects.toThrow(/is open in this process already/);
        await twin.close();
        await first.close();
        expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
      },
    );

    it("a lock held on another host is never taken over, and says how to clear it", async () => {
      const dir = join(work, "shared-disk");
      await mkdir(dir);
      const file = join(dir, LOCK_FILE_NAME);
      await writeFile(
        file,
        `${JSON.stringify({ pid: process.pid, hostname: "build-7", startedAt: "2026-01-02T03:04:05.000Z", command: "node server.js", nonce: "x" })}\n`,
      );
      const faultline = createFaultline({ database: { dataDir: dir }, worker: false, logger: silentLogger });
      await expect(faultline.ready()).rejects.toThrow(
        `Faultline's embedded data directory ${dir} is open in process ${process.pid} (node server.js) on host build-7 since 2026-01-02T03:04:05.000Z: a PGlite data directory is used by one process at a time. Stop that process, or use a PostgreSQL database to share data between processes; if that host no longer runs it, delete ${file}`,
      );
      await faultline.close();
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(false); // refused before PGlite touched it
    });
  },
);
