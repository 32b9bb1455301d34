import type { Issue, IssueStatus } from "./tables.js";
import type { ResolutionType } from "./domain-events.js";

/** How an issue was resolved, kept to decide later whether an event is a regression. */
export interface Resolution {
  type: ResolutionType;
  /** `in_release`: the release that contains the fix. */
  version?: string;
  commit?: string;
  /** `in_next_release`: the newest release seen when it was resolved. */
  releaseAtResolve?: string | null;
}

/** The conditions of an ignore ("snooze"), with the counters they are measured from. */
export interface Snooze {
  until: string | null;
  count: number | null;
  window: number | null;
  userCount: number | null;
  userWindow: number | null;
  /** times_seen and user_count when the snooze began. */
  baseCount: number;
  baseUsers: number;
  since: string;
}

/** A working copy of an issue row, changed in memory and written back once. */
export interface IssueState {
  id: number;
  organizationId: number;
  projectId: number;
  shortNumber: number;
  status: IssueStatus;
  substatus: string | null;
  statusDetails: Record<string, unknown>;
  resolution: Resolution | null;
  snooze: Snooze | null;
  timesSeen: number;
  userCount: number;
  firstSeen: Date;
  lastSeen: Date;
  level: string;
  title: string;
  culprit: string;
  message: string;
  metadata: Record<string, unknown>;
  platform: string | null;
  type: "error" | "default";
  firstRelease: string | null;
  lastRelease: string | null;
}

export function stateFromRow(row: Issue): IssueState {
  return {
    id: Number(row.id),
    organizationId: row.organization_id,
    projectId: row.project_id,
    shortNumber: row.short_number,
    status: row.status,
    substatus: row.substatus,
    statusDetails: row.status_details,
    resolution: row.resolution as Resolution | null,
    snooze: row.snooze as Snooze | null,
    timesSeen: Number(row.times_seen),
    userCount: row.user_count,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    level: row.level,
    title: row.title,
    culprit: row.culprit,
    message: row.message,
    metadata: row.metadata,
    platform: row.platform,
    type: row.type,
    firstRelease: row.first_release,
    lastRelease: row.last_release,
  };
}

/** The columns a state change writes back. */
export function stateColumns(state: IssueState) {
  return {
    status: state.status,
    substatus: state.substatus,
    status_details: JSON.stringify(state.statusDetails),
    resolution: JSON.stringify(state.resolution),
    snooze: JSON.stringify(state.snooze),
    ignore_until: state.snooze?.until ? new Date(state.snooze.until) : null,
  };
}

/** Back to unresolved, forgetting any resolution or snooze. */
export function reopen(state: IssueState, substatus: "ongoing" | "regressed" | "escalating"): void {
  state.status = "unresolved";
  state.substatus = substatus;
  state.statusDetails = {};
  state.resolution = null;
  state.snooze = null;
}

/** Whether a snooze's time has passed (the serialised status already says unresolved then). */
export function snoozeExpired(snooze: Snooze | null, now: Date): boolean {
  return snooze?.until !== null && snooze?.until !== undefined && new Date(snooze.until).getTime() <= now.getTime();
}
