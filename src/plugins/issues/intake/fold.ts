import type { NormalizedEvent } from "../../event-store/index.js";
import { compareReleases } from "../releases.js";
import { type IssueState, reopen, type Resolution, type Snooze, snoozeExpired } from "../state.js";

export interface FoldEvent {
  event: NormalizedEvent;
  /** First time this user is seen on this issue. */
  newUser: boolean;
}

export type AutomaticTransition = "regression" | "snooze_expired" | "escalating";

/** An automatic transition's activity; dated when the batch records it (record-events.ts), not by its event. */
export interface FoldActivity {
  type: string;
  data: Record<string, unknown>;
}

export interface FoldResult {
  activities: FoldActivity[];
  /** Each transition with the index of the event that caused it. */
  transitions: Array<{ reason: AutomaticTransition; eventIndex: number }>;
}

export interface FoldContext {
  /** Events and distinct users inside the snooze's windows, this batch included. */
  window: { events: number; users: number } | null;
  releaseFirstSeen(version: string): Date | undefined;
}

/**
 * Applies a batch of new events to one issue, in order: counters, the latest event's
 * title/level, and the automatic transitions (regression, snooze lifted by time, count or users).
 * Pure: the caller loads the state and writes it back.
 */
export function foldEvents(state: IssueState, events: readonly FoldEvent[], ctx: FoldContext): FoldResult {
  const result: FoldResult = { activities: [], transitions: [] };
  events.forEach(({ event, newUser }, index) => {
    state.timesSeen += 1;
    if (newUser) state.userCount += 1;
    if (event.timestamp >= state.lastSeen) {
      state.lastSeen = event.timestamp;
      Object.assign(state, {
        level: event.level,
        title: event.title,
        culprit: event.culprit,
        metadata: event.metadata,
        message: event.message,
      });
    }
    if (event.release) {
      state.lastRelease = event.release;
      state.firstRelease ??= event.release;
    }
    const transition = automaticTransition(state, event, ctx, events.length - 1 - index);
    if (transition) {
      result.transitions.push({ reason: transition.reason, eventIndex: index });
      result.activities.push({ type: transition.activity, data: transition.data });
    }
  });
  return result;
}

function automaticTransition(state: IssueState, event: NormalizedEvent, ctx: FoldContext, laterInBatch: number) {
  if (state.status === "resolved" && isRegression(state.resolution, event.release, ctx)) {
    reopen(state, "regressed");
    return { reason: "regression" as const, activity: "set_regression", data: { version: event.release ?? "" } };
  }
  if (state.status !== "ignored" || !state.snooze) return null;
  const snooze = state.snooze;
  if (snoozeExpired(snooze, event.received)) {
    reopen(state, "ongoing");
    return { reason: "snooze_expired" as const, activity: "set_unresolved", data: {} };
  }
  if (!snoozeConditionMet(snooze, state, ctx, laterInBatch)) return null;
  reopen(state, "escalating");
  return {
    reason: "escalating" as const,
    activity: "set_escalating",
    data: {
      event_id: event.eventId,
      expired_snooze: {
        until: snooze.until,
        count: snooze.count,
        window: snooze.window,
        user_count: snooze.userCount,
        user_window: snooze.userWindow,
      },
    },
  };
}

/** Resolved in release X: events of releases older than X are not regressions (nor, for "next release", the release current at resolve time). */
function isRegression(resolution: Resolution | null, release: string | null, ctx: FoldContext): boolean {
  if (!resolution || !release) return true;
  const order = (a: string, b: string) => compareReleases(a, b, ctx.releaseFirstSeen);
  if (resolution.type === "in_release" && resolution.version) return order(release, resolution.version) >= 0;
  if (resolution.type === "in_next_release" && resolution.releaseAtResolve)
    return order(release, resolution.releaseAtResolve) > 0;
  return true;
}

function snoozeConditionMet(snooze: Snooze, state: IssueState, ctx: FoldContext, laterInBatch: number): boolean {
  if (snooze.count !== null) {
    const seen = snooze.window && ctx.window ? ctx.window.events - laterInBatch : state.timesSeen - snooze.baseCount;
    if (seen >= snooze.count) return true;
  }
  if (snooze.userCount !== null) {
    // Distinct users in a window are only known for the whole batch: checked at its last event.
    if (snooze.userWindow && ctx.window) return laterInBatch === 0 && ctx.window.users >= snooze.userCount;
    if (state.userCount - snooze.baseUsers >= snooze.userCount) return true;
  }
  return false;
}
