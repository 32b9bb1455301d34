import { createHash } from "node:crypto";
import { z } from "zod";

const HOUR_MS = 3_600_000;
/** Relay's limits: sessions that started longer ago are dropped, as are sessions from the future. */
const MAX_AGE_MS = 5 * 24 * HOUR_MS;
const MAX_FUTURE_MS = 60 * 60_000;
/** A client clock off by more than this (its `sent_at` against our receipt) has its timestamps corrected. */
const CLOCK_DRIFT_MS = 55 * 60_000;

/** Where a session's numbers are counted: one project, release, environment ('' for none) and hour of its start. */
export interface SeriesKey {
  projectId: number;
  release: string;
  environment: string;
  /** The hour the session started in, ms since the epoch. */
  bucket: number;
}

/** Session statuses that make a session unhealthy, worst last: a session keeps the greatest it reported. */
export const UNHEALTHY = { errored: 1, abnormal: 2, crashed: 3 } as const;

/** What one session item or aggregate adds to the counts. */
export interface SessionContribution {
  key: SeriesKey;
  /** Sessions started (an `init` update, or an aggregate's total). */
  sessions: number;
  /** Aggregates only: sessions that ended errored, abnormal or crashed (each session in one of them). */
  errored: number;
  abnormal: number;
  crashed: number;
  /** An individual session that is unhealthy: its id's hash and status (1 errored … 3 crashed). */
  unhealthy?: { sessionHash: string; status: number };
  /** The user (`did`) seen: its hash, and whether their session crashed. */
  user?: { userHash: string; crashed: boolean };
}

/** Why an item was dropped, as the outcome's reason. */
export type InvalidReason = "payload" | "timestamp";

export type ParseResult = { ok: true; contributions: SessionContribution[] } | { ok: false; reason: InvalidReason };

/** Release names as Sentry accepts them (docs/release-health.md): not empty, no slashes or new lines. */
const release = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((value) => !/[\n\r\t/\\]/.test(value) && ![".", "..", "latest"].includes(value));
const attrs = z.object({
  release,
  environment: z.string().max(64).nullish(),
});
/** ISO 8601 or seconds since the epoch (both occur in SDKs' payloads). */
const instant = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: "custom", message: "not a timestamp" });
    return z.NEVER;
  }
  return date;
});
const distinctId = z
  .union([z.string().min(1).max(200), z.number()])
  .transform(String)
  .nullish();
const count = z.number().int().min(0).max(1_000_000).default(0);

const sessionUpdate = z.object({
  sid: z.string().min(1).max(200),
  did: distinctId,
  init: z.boolean().default(false),
  started: instant,
  status: z.enum(["ok", "exited", "crashed", "abnormal", "errored"]).default("ok"),
  errors: count,
  attrs,
});

const sessionAggregates = z.object({
  aggregates: z
    .array(
      z.object({
        started: instant,
        did: distinctId,
        exited: count,
        errored: count,
        abnormal: count,
        crashed: count,
      }),
    )
    .max(1000),
  attrs,
});

/** The first 8 bytes of SHA-256, as a signed 64-bit integer in decimal (a `bigint` column). */
export function hash64(value: string): string {
  return createHash("sha256").update(value).digest().readBigInt64BE(0).toString();
}

/** What the item's timestamps are shifted by: the client clock's error, when it is large (as Relay corrects it). */
export function clockDrift(envelopeHeader: Record<string, unknown>, receivedAt: Date): number {
  const sentAt = envelopeHeader.sent_at;
  if (typeof sentAt !== "string") return 0;
  const sent = new Date(sentAt).getTime();
  if (Number.isNaN(sent)) return 0;
  const drift = receivedAt.getTime() - sent;
  return Math.abs(drift) > CLOCK_DRIFT_MS ? drift : 0;
}

interface ParseContext {
  projectId: number;
  receivedAt: Date;
  driftMs: number;
}

/** The hour a session started in, or null when that is too old or in the future. */
function bucketOf(started: Date, context: ParseContext): number | null {
  const at = started.getTime() + context.driftMs;
  const now = context.receivedAt.getTime();
  if (at < now - MAX_AGE_MS || at > now + MAX_FUTURE_MS) return null;
  return at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

function parseJson(payload: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return undefined;
  }
}

/**
 * A `session` item: one update of one session. Its `init` update counts it started; an update
 * with errors, or ending errored, abnormal or crashed, marks it unhealthy (kept once per session,
 * its worst status); its `did` is a user of the bucket.
 */
export function parseSessionUpdate(payload: Uint8Array, context: ParseContext): ParseResult {
  const parsed = sessionUpdate.safeParse(parseJson(payload));
  if (!parsed.success) return { ok: false, reason: "payload" };
  const update = parsed.data;
  const bucket = bucketOf(update.started, context);
  if (bucket === null) return { ok: false, reason: "timestamp" };
  const status =
    update.status === "crashed" || update.status === "abnormal"
      ? UNHEALTHY[update.status]
      : update.status === "errored" || update.errors > 0
        ? UNHEALTHY.errored
        : null;
  const contribution: SessionContribution = {
    key: {
      projectId: context.projectId,
      release: update.attrs.release,
      environment: update.attrs.environment ?? "",
      bucket,
    },
    sessions: update.init ? 1 : 0,
    errored: 0,
    abnormal: 0,
    crashed: 0,
  };
  if (status !== null) contribution.unhealthy = { sessionHash: hash64(update.sid), status };
  if (update.did) contribution.user = { userHash: hash64(update.did), crashed: update.status === "crashed" };
  return { ok: true, contributions: [contribution] };
}

/** A `sessions` item: server SDKs' per-minute counts of finished sessions (request mode). */
export function parseSessionAggregates(payload: Uint8Array, context: ParseContext): ParseResult {
  const parsed = sessionAggregates.safeParse(parseJson(payload));
  if (!parsed.success) return { ok: false, reason: "payload" };
  const { aggregates, attrs: common } = parsed.data;
  const contributions: SessionContribution[] = [];
  for (const aggregate of aggregates) {
    const bucket = bucketOf(aggregate.started, context);
    if (bucket === null) return { ok: false, reason: "timestamp" };
    const { exited, errored, abnormal, crashed } = aggregate;
    const contribution: SessionContribution = {
      key: { projectId: context.projectId, release: common.release, environment: common.environment ?? "", bucket },
      sessions: exited + errored + abnormal + crashed,
      errored,
      abnormal,
      crashed,
    };
    if (aggregate.did) contribution.user = { userHash: hash64(aggregate.did), crashed: crashed > 0 };
    contributions.push(contribution);
  }
  return { ok: true, contributions };
}
