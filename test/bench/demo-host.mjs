// Runs the demo host (examples/demo/server.mjs, the one `npm start` runs) as a child process of its
// own and measures it from outside: `node demo-host.mjs <dataDir|postgres-url> <events> [host script]`
// prints {"firstAnswerMs", "firstAnswerCpuMs", "rssIdleMB", "rssAfterEventsMB", "events"} as one JSON
// line. The host script defaults to the demo; bare-host.mjs, the benchmark's floor, is timed the same way.
// - firstAnswerMs: from spawn to the first 200 of GET /health (the demo listens only once
//   Faultline is ready and seeded, so this is the time to the first answer);
// - firstAnswerCpuMs: the CPU time the child had used by then (all its threads);
// - rssIdleMB: the child's resident set (VmRSS) 2 s after that answer;
// - rssAfterEventsMB: after <events> error events sent over HTTP (store endpoint, 8 at a time)
//   and 2 s of rest (with 0 events: no events sent, the idle figure again).
// Needs dist/ (npm run build). The child is killed (its process group) on every way out.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "../../scripts/free-port.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const [where, eventsArg = "0", hostScript = `${root}examples/demo/server.mjs`] = process.argv.slice(2);
const events = Number(eventsArg);
const DSN_KEY = "f00dfeedf00dfeedf00dfeedf00dfeed";
const HOST = "127.0.0.1";
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU time (user + system, all threads) a process has used, in ms (Linux /proc): the time to the
 * first answer as the process itself spent it, which other load on the machine does not stretch.
 */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime, stime in USER_HZ (100)
}

/** Resident set of a process in MB (Linux /proc). */
function rssMB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Math.round(Number(line[1]) / 1024) : Number.NaN;
}

function call(port, method, path, body) {
  return new Promise((resolve) => {
    const req = request(
      { host: HOST, port, method, path, headers: body ? { "content-type": "application/json" } : {} },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

function event(i) {
  const group = i % 50;
  return JSON.stringify({
    event_id: crypto.randomUUID().replaceAll("-", ""),
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    tags: { region: `r${i % 4}` },
    user: { id: `user-${i % 500}` },
    exception: {
      values: [
        {
          type: "BenchError",
          value: `failure ${group}`,
          stacktrace: {
            frames: [{ filename: "/app/server.js", function: `handler${group}`, lineno: 10, in_app: true }],
          },
        },
      ],
    },
  });
}

/** Sends `events` error events to the demo's store endpoint, 8 at a time; each must be accepted. */
async function sendEvents() {
  const projectId = output.match(/DSN \(project "web"\):\s+\S+\/(\d+)\s/)?.[1];
  if (!projectId) throw new Error(`no DSN in the demo's output: ${output}`);
  const path = `/api/${projectId}/store/?sentry_key=${DSN_KEY}&sentry_version=7`;
  let next = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < events) {
        const status = await call(port, "POST", path, event(next++));
        if (status !== 200) failed += 1;
      }
    }),
  );
  if (failed > 0) throw new Error(`${failed} of ${events} events were not accepted`);
}

const port = await freePort(HOST);
const database = where.startsWith("postgres")
  ? { DATABASE_URL: where }
  : { FAULTLINE_DATA_DIR: where, DATABASE_URL: "" };
const startedAt = performance.now();
const child = spawn(process.execPath, [hostScript], {
  cwd: root,
  env: {
    ...process.env,
    ...database,
    PORT: String(port),
    HOST,
    FAULTLINE_DEMO_DSN_KEY: DSN_KEY,
    NODE_ENV: "production",
  },
  stdio: ["ignore", "pipe", "pipe"],
  detached: true,
});
let output = "";
child.stdout.on("data", (chunk) => (output += chunk));
child.stderr.on("data", (chunk) => (output += chunk));
const kill = () => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
};
process.on("exit", kill);

try {
  let firstAnswerMs;
  let firstAnswerCpuMs;
  while (firstAnswerMs === undefined) {
    if (child.exitCode !== null) throw new Error(`the demo exited (${child.exitCode}): ${output}`);
    if ((await call(port, "GET", "/health")) === 200) {
      firstAnswerMs = Math.round(performance.now() - startedAt);
      firstAnswerCpuMs = cpuMs(child.pid);
    } else await delay(20);
    if (performance.now() - startedAt > 120_000) throw new Error(`no answer in 120 s: ${output}`);
  }
  await delay(2000);
  const rssIdleMB = rssMB(child.pid);
  let rssAfterEventsMB = rssIdleMB;
  if (events > 0) {
    await sendEvents();
    await delay(2000);
    rssAfterEventsMB = rssMB(child.pid);
  }
  process.stdout.write(`${JSON.stringify({ firstAnswerMs, firstAnswerCpuMs, rssIdleMB, rssAfterEventsMB, events })}\n`);
} catch (error) {
  process.stderr.write(`demo-host: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  kill();
}
