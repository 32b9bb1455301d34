import type { ActingUser } from "../../../auth/actor.js";
import { badRequest, fieldErrors } from "../../../http/errors.js";
import type { ResolutionType } from "../domain-events.js";
import { type IssueState, reopen, type Resolution, type Snooze } from "../state.js";
import { type IgnoreConditions, ignoreConditionsOf, type UpdateIssueBody } from "./schemas.js";

/** Who changed the status, as Sentry puts it in statusDetails.actor. */
export type StatusActor = ActingUser;

export type StatusEvent =
  { name: "issue.resolved"; resolutionType: ResolutionType } | { name: "issue.ignored" } | { name: "issue.unresolved" };

export interface StatusChange {
  activity: { type: string; data: Record<string, unknown> };
  event: StatusEvent;
}

export interface StatusContext {
  actor: StatusActor | null;
  now: Date;
  latestRelease(): Promise<string | undefined>;
  releaseExists(version: string): Promise<boolean>;
}

const NO_RELEASE_DATA = "No release data present in the system to form a basis for 'Next Release'";

/** Applies a PUT's status fields to the state; null when nothing actually changed. */
export async function applyStatus(
  state: IssueState,
  body: UpdateIssueBody,
  ctx: StatusContext,
): Promise<StatusChange | null> {
  if (body.status === undefined) return null;
  const before = fingerprint(state);
  const change = await transition(state, body, ctx);
  return fingerprint(state) === before ? null : change;
}

async function transition(state: IssueState, body: UpdateIssueBody, ctx: StatusContext): Promise<StatusChange> {
  const details = body.statusDetails ?? {};
  if (body.status === "resolvedInNextRelease" || (body.status === "resolved" && details.inNextRelease === true)) {
    return resolveInNextRelease(state, ctx);
  }
  if (body.status === "resolved" && details.inRelease !== undefined)
    return resolveInRelease(state, details.inRelease, ctx);
  if (body.status === "resolved" && details.inCommit !== undefined) {
    resolve(
      state,
      { type: "in_commit", commit: details.inCommit },
      { inCommit: { id: details.inCommit }, actor: ctx.actor },
    );
    return {
      activity: { type: "set_resolved_in_commit", data: { commit: details.inCommit } },
      event: { name: "issue.resolved", resolutionType: "in_commit" },
    };
  }
  if (body.status === "resolved") {
    resolve(state, { type: "now" }, {});
    return { activity: { type: "set_resolved", data: {} }, event: { name: "issue.resolved", resolutionType: "now" } };
  }
  if (body.status === "unresolved") {
    reopen(state, "ongoing");
    return { activity: { type: "set_unresolved", data: {} }, event: { name: "issue.unresolved" } };
  }
  return ignore(state, ignoreConditionsOf(body), ctx);
}

async function resolveInRelease(state: IssueState, requested: string, ctx: StatusContext): Promise<StatusChange> {
  const version = requested === "latest" ? await ctx.latestRelease() : requested;
  if (!version || !(await ctx.releaseExists(version))) {
    throw fieldErrors({ "statusDetails.inRelease": [`Unknown release "${requested}"`] });
  }
  resolve(state, { type: "in_release", version }, { inRelease: version, actor: ctx.actor });
  return {
    activity: { type: "set_resolved_in_release", data: { version } },
    event: { name: "issue.resolved", resolutionType: "in_release" },
  };
}

async function resolveInNextRelease(state: IssueState, ctx: StatusContext): Promise<StatusChange> {
  const current = state.lastRelease ?? (await ctx.latestRelease());
  if (!current) throw badRequest(NO_RELEASE_DATA, { "statusDetails.inNextRelease": [NO_RELEASE_DATA] });
  resolve(state, { type: "in_next_release", releaseAtResolve: current }, { inNextRelease: true, actor: ctx.actor });
  return {
    activity: { type: "set_resolved_in_release", data: { version: "" } },
    event: { name: "issue.resolved", resolutionType: "in_next_release" },
  };
}

function resolve(state: IssueState, resolution: Resolution, statusDetails: Record<string, unknown>): void {
  state.status = "resolved";
  state.substatus = null;
  state.statusDetails = statusDetails;
  state.resolution = resolution;
  state.snooze = null;
}

function ignore(state: IssueState, conditions: IgnoreConditions, ctx: StatusContext): StatusChange {
  state.status = "ignored";
  state.resolution = null;
  const given = Object.fromEntries(Object.entries(conditions).filter(([, value]) => value !== null));
  if (Object.keys(given).length === 0) {
    state.substatus = "archived_forever";
    state.statusDetails = {};
    state.snooze = null;
    return { activity: { type: "set_ignored", data: {} }, event: { name: "issue.ignored" } };
  }
  const until = conditions.ignoreDuration
    ? new Date(ctx.now.getTime() + conditions.ignoreDuration * 60_000).toISOString()
    : null;
  state.substatus = "archived_until_condition_met";
  state.statusDetails = { ignoreUntil: until, ...conditions, actor: ctx.actor };
  state.snooze = snoozeFor(state, conditions, until, ctx.now);
  return { activity: { type: "set_ignored", data: given }, event: { name: "issue.ignored" } };
}

function snoozeFor(state: IssueState, c: IgnoreConditions, until: string | null, now: Date): Snooze {
  return {
    until,
    count: c.ignoreCount,
    window: c.ignoreWindow,
    userCount: c.ignoreUserCount,
    userWindow: c.ignoreUserWindow,
    baseCount: state.timesSeen,
    baseUsers: state.userCount,
    since: now.toISOString(),
  };
}

/** What counts as "changed": status and its conditions, not who did it or when. */
function fingerprint(state: IssueState): string {
  const { actor: _actor, ...details } = state.statusDetails;
  const snooze = state.snooze && { ...state.snooze, since: undefined, baseCount: undefined, baseUsers: undefined };
  return JSON.stringify([state.status, state.substatus, details, state.resolution, snooze]);
}
