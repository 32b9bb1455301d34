import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomHex } from "../../src/crypto/secrets.js";
import { pickBackend } from "../../src/testing/index.js";
import { artifactBundle, uploadBundle } from "../helpers/artifact-upload.js";
import { bundleFixture } from "../helpers/bundle.js";
import { sentryCli } from "../helpers/sentry-cli.js";
import { waitFor } from "../helpers/wait.js";

const MiB = 1024 * 1024;
/** The largest chunk the host advertises (chunk-upload options). */
const CHUNK = 2 * MiB;
/**
 * What a large upload may add to the host's peak RSS once a small one of the same kind has run:
 * 2 chunks, plus room for garbage not collected yet. What every upload needs whatever its size
 * (a request's copies of its chunk, a piece in flight, the driver's and embedded PGlite's buffers
 * for one statement) is in place after the warm-up, which reports it.
 */
const GROWTH_BOUND = 2 * CHUNK + 48 * MiB;

/** The process's peak resident set so far (Linux: VmHWM), in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/**
 * A source map of `mib` MiB whose source reads like code (keywords and random identifiers, not
 * zeros), so that it compresses about as a real one does. One MiB of such text is made once and
 * repeated: DEFLATE looks back 32 KiB, so a repeat a MiB away compresses like new text.
 */
function sourceMapOf(name: string, mib: number): string {
  const words = [
    "const",
    "function",
    "return",
    "await",
    "import",
    "export",
    "=>",
    "{",
    "}",
    "(",
    ")",
    ";",
    "if",
    "else",
    "for",
    "let",
  ];
  const ids = randomBytes(MiB / 4).toString("hex");
  let block = "";
  for (let i = 0; block.length < MiB; i++)
    block +=
      (i % 3 === 0
        ? `id${ids.slice((i * 6) % (ids.length - 6), ((i * 6) % (ids.length - 6)) + 6)}`
        : words[i % words.length]) + (i % 12 === 11 ? "\n" : " ");
  return JSON.stringify({
    version: 3,
    file: `${name}.js`,
    sources: [`src/${name}.ts`],
    sourcesContent: [`// ${name}\n${block.repeat(mib)}`],
    names: [],
    mappings: "AAAA",
  });
}

/** `count` minified files, each with a source map of `mib` MiB, in `dir`. */
async function writeSourceMaps(dir: string, count: number, mib: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    await writeFile(join(dir, `chunk${i}.js`), `console.log(${i});\n//# sourceMappingURL=chunk${i}.js.map\n`);
    await writeFile(join(dir, `chunk${i}.js.map`), sourceMapOf(`chunk${i}`, mib));
  }
}

describe("artifact uploads never end the host, and its memory does not grow with the bundle (#27)", () => {
  let bundle: Awaited<ReturnType<typeof bundleFixture>>;
  let child: ChildProcess;
  let base = "";
  let token = "";
  let url: string | undefined;
  let work = "";
  const schema = `uploads_${randomHex(4)}`;

  const hostAnswers = async () => expect(await (await fetch(`${base}/host/ping`)).text()).toBe("pong");
  /** Runs `upload`, and what it added to the host's peak RSS. */
  const growthOf = async <T>(upload: () => Promise<T>): Promise<{ result: T; growth: number }> => {
    const before = await peakRss(child.pid as number);
    const started = performance.now();
    const result = await upload();
    const growth = (await peakRss(child.pid as number)) - before;
    console.info(
      `upload: ${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS growth ${(growth / MiB).toFixed(1)} MiB (bound ${GROWTH_BOUND / MiB} MiB)`,
    );
    return { result, growth };
  };

  beforeAll(async () => {
    bundle = await bundleFixture("upload-host");
    work = await mkdtemp(join(tmpdir(), "faultline-uploads-"));
    const picked = await pickBackend();
    url = picked.backend === "pglite" ? undefined : picked.url;
    const env = {
      ...process.env,
      FIXTURE_DATABASE_URL: url ?? "",
      FIXTURE_SCHEMA: url ? schema : "",
      FIXTURE_DATA_DIR: join(work, "data"),
    };
    child = spawn(process.execPath, [bundle.file], { env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const [, readyBase, readyToken] = await waitFor(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`the host exited before it was ready (code ${child.exitCode}): ${output}`);
        return /^READY (\S+) (\S+)$/m.exec(output);
      },
      120_000,
      "the host to start",
    );
    base = readyBase as string;
    token = readyToken as string;
    // Warm: small uploads of each kind load and size what every later one shares (modules, the
    // pool, prepared plans, PGlite's heap); what they took is the fixed amount, reported.
    await writeSourceMaps(join(work, "warm"), 1, 4);
    const warm = await growthOf(async () => {
      expect(
        await uploadBundle(base, token, artifactBundle({ "warm.js": { data: randomBytes(4 * MiB) } })),
      ).toMatchObject({ state: "ok" });
      await sentryCli(["sourcemaps", "upload", "--release", "web@warm", join(work, "warm")], {
        url: base,
        token,
        org: "acme",
        project: "web",
      });
    });
    console.info(
      `the fixed amount (a 4 MiB bundle, then a 4 MiB sentry-cli upload, after start): ${(warm.growth / MiB).toFixed(1)} MiB`,
    );
  }, 180_000);
  afterAll(async () => {
    child?.kill("SIGKILL");
    await bundle?.remove();
    if (work) await rm(work, { recursive: true, force: true });
    if (url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });

  // Its pieces are all the same: one write reaches the database, whichever it is. Run on embedded
  // PGlite only (inflating 500 MiB is CPU that CI's budget spends once); the cases below, which
  // write what they upload, run on both.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    "a bundle of ~500 KB whose entries inflate (honestly) to 500 MiB of zeros, just under the 512 MiB limit, assembles within the bound",
    { timeout: 240_000 },
    async () => {
      const bomb = artifactBundle(
        Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`zeros${i}.js`, { data: new Uint8Array(100 * MiB) }])),
      );
      expect(bomb.byteLength).toBeLessThan(600 * 1024);
      const { result, growth } = await growthOf(() => uploadBundle(base, token, bomb));
      expect(result).toEqual({ state: "ok", detail: null, missingChunks: [] });
      expect(growth).toBeLessThanOrEqual(GROWTH_BOUND);
      await hostAnswers();
    },
  );

  it("8 MiB of random bytes (a bundle that does not compress), within the bound", { timeout: 240_000 }, async () => {
    const noise = artifactBundle({ "noise.js": { data: randomBytes(8 * MiB) } });
    const { result, growth } = await growthOf(() => uploadBundle(base, token, noise));
    expect(result).toMatchObject({ state: "ok" });
    expect(growth).toBeLessThanOrEqual(GROWTH_BOUND);
    await hostAnswers();
  });

  it(
    "a real `sentry-cli sourcemaps upload` of a 64 MiB source-map set, within the bound",
    { timeout: 300_000 },
    async () => {
      await writeSourceMaps(join(work, "set"), 8, 8);
      const { growth } = await growthOf(() =>
        sentryCli(["sourcemaps", "upload", "--release", "web@64", join(work, "set")], {
          url: base,
          token,
          org: "acme",
          project: "web",
        }),
      );
      expect(growth).toBeLessThanOrEqual(GROWTH_BOUND);
      await hostAnswers();
    },
  );
});
