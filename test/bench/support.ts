import { Agent, request } from "node:http";
import { cpus, totalmem } from "node:os";
import pg from "pg";

/** The PostgreSQL the benchmarks run on (never PGlite: the figures are about production). */
export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

export async function sqlClient() {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  return client;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs `task` with `concurrency` workers until `total` calls have been made. */
export async function runConcurrently(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

export function report(title: string, rows: Array<Record<string, string | number>>): void {
  const lines = [`\n### ${title}`, `machine: ${machine()}`];
  const headers = Object.keys(rows[0] ?? {});
  lines.push(`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`);
  for (const row of rows) lines.push(`| ${headers.map((h) => String(row[h])).join(" | ")} |`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The error event every ingest benchmark sends (one definition, shared with the load generators). */
export { benchEvent } from "./bench-envelope.mjs";

/**
 * A keep-alive node:http client posting bodies, resolving with the status once the answer is read
 * (undici's fetch costs more CPU per request than the server under test).
 */
export function keepAlivePoster(maxSockets: number): (url: string, body: string) => Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return (url, body) =>
    new Promise((resolve, reject) => {
      const req = request(
        url,
        { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}
