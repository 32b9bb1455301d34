import { Session } from "node:inspector/promises";

/** One node of a V8 CPU profile (what `Profiler.stop` returns). */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

type Frame = ProfileNode["callFrame"];

/**
 * Where a host thread's time goes in a storm: each sample is given to the first stage (in this
 * order) with a frame anywhere on its stack — so the digest's pg calls count as the digest, an
 * accepted request's as ingest — and samples with no stage to the leaf's kind.
 */
const STAGES: Array<[string, (frame: Frame) => boolean]> = [
  [
    "digest (the worker's ingest.digest: grouping, storing, rules)",
    (f) =>
      /\/src\/plugins\/(ingest\/queue\/digest|event-store\/write|issues\/intake|alerts\/)/.test(f.url) ||
      f.url.includes("/src/worker/"),
  ],
  [
    "ingest on the host's thread (key, limits, hand-off to a thread, group commit, outcomes)",
    (f) => f.url.includes("/src/plugins/ingest/"),
  ],
  [
    "Faultline's HTTP pipeline (request, routing, reply)",
    (f) => f.url.includes("/src/http/") || f.url.includes("/adapters/node/"),
  ],
  ["pg client (other queries)", (f) => /\/node_modules\/(pg|pg-protocol)\//.test(f.url)],
  [
    "node:http parsing and sockets",
    (f) => f.url.startsWith("node:_http") || f.url.startsWith("node:net") || f.url.startsWith("node:internal/stream"),
  ],
];

/** Profiles this thread until the returned function is called, which answers the stage table. */
export async function profileThisThread(): Promise<() => Promise<Array<[string, number, number]>>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: CpuProfile };
    session.disconnect();
    return attribute(profile);
  };
}

/** Milliseconds and share of the profile's wall time per stage (idle and GC apart). */
export function attribute(profile: CpuProfile): Array<[string, number, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    const frames: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    const leaf = frames[0]?.functionName ?? "";
    const stage =
      STAGES.find(([, matches]) => frames.some(matches))?.[0] ??
      (leaf === "(idle)"
        ? "idle (the thread waiting)"
        : leaf === "(garbage collector)"
          ? "garbage collector"
          : leaf === "(program)"
            ? "V8 and native, unattributed"
            : "other (the host's own route, the bench's probes and pollers)");
    stageOf.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const stage = classify(id);
    totals.set(stage, (totals.get(stage) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const wall = (profile.endTime - profile.startTime) / 1000;
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([stage, ms]) => [stage, ms, ms / wall]);
}
