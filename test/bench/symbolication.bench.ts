import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { originalPositionFor } from "@jridgewell/trace-mapping";
import { build } from "esbuild";
import { afterAll, expect, it } from "vitest";
import { createFaultline, SCOPES, tokens } from "../../src/index.js";
import { ArtifactStoreToken } from "../../src/plugins/releases/index.js";
import { AbsentMaps } from "../../src/plugins/releases/symbolicate/absent-maps.js";
import { SourceMapCache } from "../../src/plugins/releases/symbolicate/cache.js";
import { SourceMapProcessor } from "../../src/plugins/releases/symbolicate/processor.js";
import { sentryCli } from "../helpers/sentry-cli.js";
import { serveFaultline } from "../helpers/server.js";
import { BENCH_DATABASE_URL, percentile, quietLogger, report, sqlClient } from "./support.js";

/**
 * Symbolication cost per event (#16): a real esbuild bundle (a 12-deep call chain into zod, which
 * throws), minified, debug IDs injected and uploaded by sentry-cli; its stack (every frame in the
 * bundle) run through the releases plugin's processor — the debug-ID lookup query plus mapping —
 * with a warm parse cache, against, in the same run and alternated round by round, (a) the same
 * event whose debug ID matches no upload (the lookup query, nothing mapped) and (b) the bare
 * trace-mapping lookups of its frames on the parsed map. Cold: a fresh cache, so the map is
 * loaded from the artifact store and parsed for the event.
 */
const EVENTS = Number(process.env.BENCH_SYMBOLICATION_EVENTS ?? 400);
const ROUNDS = Number(process.env.BENCH_SYMBOLICATION_ROUNDS ?? 5);
const COLD = Number(process.env.BENCH_SYMBOLICATION_COLD ?? 30);
const root = fileURLToPath(new URL("../..", import.meta.url));
const schema = `bench_symbolication_${Date.now()}`;
const work = mkdtempSync(join(tmpdir(), "faultline-bench-symbolication-"));

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

const chain = Array.from({ length: 12 }, (_, i) =>
  i === 11
    ? `function step${i}(order: unknown) { return Order.parse(order); }`
    : `function step${i}(order: { lines: unknown[] }) { const copy = { ...order, lines: [...order.lines] }; return step${i + 1}(copy); }`,
).join("\n");
const APP = `import { z } from "zod";
const Order = z.object({ id: z.string().uuid(), lines: z.array(z.object({ sku: z.string().min(1), quantity: z.number().int().positive() })).min(1) });
${chain}
export function checkout() { return step0({ id: "not-a-uuid", lines: [{ sku: "", quantity: 0 }] } as never); }
`;

/** V8 stack lines into Sentry frames (oldest first), only those in the bundle. */
function framesOf(stack: string, file: string) {
  const frames = [];
  for (const line of stack.split("\n").slice(1)) {
    const match = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!match || match[2] !== file) continue;
    frames.push({
      function: match[1] ?? "<anonymous>",
      filename: file,
      abs_path: file,
      lineno: Number(match[3]),
      colno: Number(match[4]),
      in_app: true,
    });
  }
  return frames.reverse();
}

async function timePerEvent(count: number, task: () => Promise<unknown>) {
  const durations: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const at = performance.now();
    await task();
    durations.push(performance.now() - at);
  }
  return { mean: ((performance.now() - started) * 1000) / count, p50: percentile(durations, 50) * 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

it("symbolication: µs per event with a warm cache, cold, and the baselines", async () => {
  const faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  const server = await serveFaultline(faultline);
  try {
    const organization = await faultline.api.organizations.create({ slug: "bench" });
    const owner = await faultline.api.users.create({ username: "bench" });
    await faultline.api.members.add({ organization: "bench", user: owner.id, role: "owner" });
    const project = await faultline.api.projects.create({ organization: "bench", slug: "web", platform: "javascript" });
    const { token } = await faultline.api.tokens.create({ user: owner.id, scopes: [...SCOPES] });

    await build({
      stdin: { contents: APP, loader: "ts", resolveDir: root, sourcefile: "app.ts" },
      bundle: true,
      minify: true,
      sourcemap: true,
      format: "cjs",
      platform: "node",
      outfile: join(work, "app.js"),
      logLevel: "silent",
    });
    const env = { url: server.url, token, org: "bench", project: "web" };
    await sentryCli(["sourcemaps", "inject", work], env);
    await sentryCli(["sourcemaps", "upload", work], env);
    const file = join(work, "app.js");
    // The ID `sentry-cli sourcemaps inject` wrote into the script (the map's key name varies by version).
    const debugId = /\/\/# debugId=([0-9a-f-]{36})/.exec(readFileSync(file, "utf8"))?.[1];
    if (!debugId) throw new Error("sentry-cli sourcemaps inject wrote no debug ID");
    const mapBytes = readFileSync(`${file}.map`).byteLength;
    const scriptBytes = readFileSync(file).byteLength;

    const previousLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    let stack = "";
    try {
      (createRequire(import.meta.url)(file) as { checkout(): unknown }).checkout();
    } catch (error) {
      stack = (error as Error).stack ?? "";
    } finally {
      Error.stackTraceLimit = previousLimit;
    }
    const frames = framesOf(stack, file);
    expect(frames.length).toBeGreaterThanOrEqual(10);
    const eventWith = (id: string) => ({
      event_id: "ab".repeat(16),
      platform: "javascript",
      exception: { values: [{ type: "ZodError", value: "invalid order", stacktrace: { frames } }] },
      debug_meta: { images: [{ type: "sourcemap", code_file: file, debug_id: id }] },
    });
    const matching = eventWith(debugId);
    const unmatched = eventWith("00000000-0000-4000-8000-000000000000");

    const db = faultline.container.resolve(tokens.Db);
    const store = faultline.container.resolve(ArtifactStoreToken);
    const ref = { organizationId: Number(organization.id), id: Number(project.id), platform: "javascript" };
    const warm = new SourceMapProcessor(store, new SourceMapCache(64 * 1024 * 1024), new AbsentMaps());
    const run = (processor: SourceMapProcessor, payload: Record<string, unknown>) =>
      processor.process({ db, project: ref, payload });

    // Correctness first: the mapped event names the original functions; the unmatched one maps nothing.
    const mapped = (await run(warm, matching)) as {
      exception: { values: Array<{ stacktrace: { frames: Array<{ function?: string; filename?: string }> } }> };
    };
    const mappedFrames = mapped.exception.values[0]?.stacktrace.frames ?? [];
    expect(
      mappedFrames.filter((frame) => /(^|\/)app\.ts$/.test(frame.filename ?? "")).map((frame) => frame.function),
    ).toContain("step11");
    const notMapped = (await run(warm, unmatched)) as { errors?: unknown[] } | null;
    expect(notMapped?.errors).toContainEqual(expect.objectContaining({ type: "js_no_source" }));

    // The bare lookups: the map as the warm cache holds it.
    const parsed = await new SourceMapCache(64 * 1024 * 1024).get("bare", async () => ({
      data: readFileSync(`${file}.map`),
    }));
    if (!parsed.ok) throw new Error(parsed.reason);
    const bare = async () => {
      for (const frame of frames) originalPositionFor(parsed.map.map, { line: frame.lineno, column: frame.colno - 1 });
    };

    for (let i = 0; i < 50; i++) {
      await run(warm, matching);
      await run(warm, unmatched);
      await bare();
    }
    const cases = {
      "warm cache, map found by debug ID": () => run(warm, matching),
      "baseline: no matching map (lookup query only)": () => run(warm, unmatched),
      "baseline: bare trace-mapping lookups": bare,
    } as const;
    const samples = new Map(Object.keys(cases).map((name) => [name, { mean: [] as number[], p50: [] as number[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated (A B C, C B A, …): whatever else the cores do drifts over the run.
      const order = round % 2 === 0 ? Object.entries(cases) : Object.entries(cases).reverse();
      for (const [name, task] of order) {
        const result = await timePerEvent(EVENTS, task);
        samples.get(name)?.mean.push(result.mean);
        samples.get(name)?.p50.push(result.p50);
      }
    }
    // Cold: every event with a new cache, so the map is read from the store and parsed.
    const cold = await timePerEvent(COLD, () =>
      run(new SourceMapProcessor(store, new SourceMapCache(64 * 1024 * 1024), new AbsentMaps()), matching),
    );

    const warmMean = median(samples.get("warm cache, map found by debug ID")?.mean ?? []);
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, sample] of samples) {
      const mean = median(sample.mean);
      rows.push({
        case: name,
        "µs/event (median of rounds)": Math.round(mean),
        "p50 µs": Math.round(median(sample.p50)),
        "warm ÷ this": (warmMean / mean).toFixed(2),
      });
    }
    rows.push({
      case: `cold: first event, map loaded and parsed (${COLD} events)`,
      "µs/event (median of rounds)": Math.round(cold.mean),
      "p50 µs": Math.round(cold.p50),
      "warm ÷ this": (warmMean / cold.mean).toFixed(2),
    });
    report(
      `Symbolication, in-process, ${frames.length} frames into a ${Math.round(scriptBytes / 1024)} KiB esbuild bundle (${Math.round(mapBytes / 1024)} KiB map), ${EVENTS} events × ${ROUNDS} rounds`,
      rows,
    );
  } finally {
    await server.close();
    await faultline.close();
  }
});
