import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomHex } from "../../src/crypto/secrets.js";
import { pickBackend } from "../../src/testing/index.js";
import { bundleFixture } from "../helpers/bundle.js";
import { errorEvent } from "../helpers/events.js";
import { waitFor } from "../helpers/wait.js";

/** Generous: a bound against hanging for ever, not a speed assertion (PGlite closes a data directory in well under a second when idle). */
const EXIT_BOUND_MS = 60_000;

describe("a host process shut down with the README's SIGTERM snippet (#17)", () => {
  let bundle: Awaited<ReturnType<typeof bundleFixture>>;
  let cwd: string;
  let url: string | undefined;
  const schema = `shutdown_${randomHex(4)}`;

  beforeAll(async () => {
    bundle = await bundleFixture("shutdown-host");
    cwd = await mkdtemp(join(tmpdir(), "faultline-host-"));
    const picked = await pickBackend();
    url = picked.backend === "pglite" ? undefined : picked.url;
  });
  afterAll(async () => {
    await bundle?.remove();
    await rm(cwd, { recursive: true, force: true });
    if (url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });

  it(
    "exits by itself after SIGTERM: server closed, then faultline.close() leaves no handle behind",
    { timeout: 240_000 },
    async () => {
      // No `database` in the host: DATABASE_URL when set (PostgreSQL), else .faultline/data under its working directory.
      const { DATABASE_URL: _unset, ...inherited } = process.env;
      const env = { ...inherited, FIXTURE_SCHEMA: url ? schema : "", ...(url && { DATABASE_URL: url }) };
      const child: ChildProcess = spawn(process.execPath, [bundle.file], {
        cwd,
        env,
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
      try {
        const ready = await waitFor(
          async () => {
            if (child.exitCode !== null)
              throw new Error(`the host exited before it was ready (code ${child.exitCode}): ${output}`);
            return /^READY (\S+) (\d+) ([0-9a-f]{32})$/m.exec(output);
          },
          180_000,
          "the host to start",
        );
        const [, base, projectId, key] = ready;
        // Real traffic first, so the pool, the queue's group commit, the digest and (PostgreSQL) LISTEN are all in use.
        const body = ["{}", '{"type":"event"}', JSON.stringify(errorEvent())].join("\n");
        const sent = await fetch(`${base}/api/${projectId}/envelope/?sentry_key=${key}`, { method: "POST", body });
        expect(sent.status).toBe(200);
        expect((await fetch(`${base}/api/0/organizations/acme/`)).status).toBe(401);

        child.kill("SIGTERM");
        const bound = new Promise<"hung">((resolve) => setTimeout(resolve, EXIT_BOUND_MS, "hung").unref());
        const outcome = await Promise.race([exited, bound]);
        expect(outcome).not.toBe("hung");
        expect(outcome).toEqual([0, null]); // a natural exit: the snippet never calls process.exit
        expect(output).toMatch(/^CLOSED$/m);
        // Which store the host used, said once at startup (and never a password): at warn when
        // nobody chose it (no `database`, no DATABASE_URL), which the default logger prints (#27).
        const storage = url
          ? `LOG faultline: storage PostgreSQL at ${new URL(url).host}${new URL(url).pathname}, schema ${schema}`
          : `WARN faultline: storage embedded PGlite at ${join(cwd, ".faultline/data")}, schema faultline (the default: no \`database\` option and no DATABASE_URL; one process at a time, use PostgreSQL to share or in production)`;
        expect(output.match(/^(LOG|WARN) faultline: storage .*$/gm)).toEqual([storage]);
        expect(output.replace(storage, "")).not.toMatch(/^(WARN|ERROR) /m);
        if (!url) expect((await stat(join(cwd, ".faultline/data/PG_VERSION"))).isFile()).toBe(true);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    },
  );
});
