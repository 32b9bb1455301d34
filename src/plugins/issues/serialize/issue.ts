import type { Kysely } from "kysely";
import type { Database, Issue } from "../../../db/schema.js";
import { idString, isoDate } from "../../../http/format.js";
import { formatShortId } from "../short-id.js";
import { snoozeExpired, type Snooze } from "../state.js";
import { type DetailColumns, type IssueWithDetail, loadDetail } from "./detail-query.js";
import { hasRelatedColumns, type RelatedColumns, type TimelineBuckets } from "./related-sql.js";
import { fillTimeline, loadTimelines, type StatsPeriod, type Timeline } from "./stats.js";

export interface SerializeContext {
  db: Kysely<Database>;
  /** The calling user, for per-user flags; null for organization tokens. */
  userId: number | null;
  now: Date;
  /** `24h` / `14d`, or null for no `stats` field. */
  statsPeriod: "24h" | "14d" | null;
  /** Issue permalink template with `{organization}`, `{issueId}` and `{shortId}`, or null. */
  permalinkTemplate: string | null;
  organizationSlug: string;
}

interface Related {
  projects: Map<number, { id: number; slug: string; name: string; platform: string | null }>;
  users: Map<number, { id: number; username: string; email: string | null; name: string }>;
  teams: Map<number, { id: number; slug: string; name: string }>;
  state: Map<number, { is_bookmarked: boolean; is_subscribed: boolean; has_seen: boolean }>;
  stats: Map<number, Timeline> | null;
}

/**
 * The list item shape of api.md §3.1, for many issues with a fixed number of queries: none when
 * the rows were read with their related columns (related-sql.ts), else one per related table.
 */
export async function serializeIssues(rows: ReadonlyArray<Issue | (Issue & RelatedColumns)>, ctx: SerializeContext) {
  if (rows.length > 0 && rows.every(hasRelatedColumns)) {
    const related = relatedOf(rows as ReadonlyArray<Issue & RelatedColumns>, ctx.statsPeriod, ctx.now);
    return rows.map((row) => issueListItem(row, related, ctx));
  }
  const related = await loadRelated(rows, ctx);
  return rows.map((row) => issueListItem(row, related, ctx));
}

/** What a snooze that has run out looks like: already unresolved, even before the timer runs. */
export function effectiveStatus(row: Issue, now: Date) {
  if (row.status === "ignored" && snoozeExpired(row.snooze as Snooze | null, now)) {
    return { status: "unresolved" as const, substatus: "ongoing", statusDetails: {} };
  }
  return { status: row.status, substatus: row.substatus, statusDetails: row.status_details };
}

function issueListItem(row: Issue, related: Related, ctx: SerializeContext) {
  const id = Number(row.id);
  const project = related.projects.get(row.project_id);
  const slug = project?.slug ?? "";
  const shortId = formatShortId(slug, row.short_number);
  const state = related.state.get(id);
  const { status, substatus } = effectiveStatus(row, ctx.now);
  const assignee = assigneeOf(row, related);
  return {
    id: idString(id),
    shortId,
    title: row.title,
    culprit: row.culprit,
    level: row.level,
    status,
    substatus,
    firstSeen: isoDate(row.first_seen),
    lastSeen: isoDate(row.last_seen),
    count: String(row.times_seen),
    userCount: row.user_count,
    assignedTo: assignee?.name ?? null,
    assignee,
    isBookmarked: state?.is_bookmarked ?? false,
    isSubscribed: state?.is_subscribed ?? false,
    hasSeen: state?.has_seen ?? false,
    isPublic: row.is_public,
    project: { id: idString(row.project_id), name: project?.name ?? "", slug, platform: project?.platform ?? null },
    metadata: row.metadata,
    platform: row.platform,
    type: row.type,
    permalink: ctx.permalinkTemplate
      ? ctx.permalinkTemplate.replaceAll("{organization}", ctx.organizationSlug).replaceAll("{issueId}", String(id)).replaceAll("{shortId}", shortId)
      : null,
    numComments: row.num_comments,
    ...(related.stats && ctx.statsPeriod ? { stats: { [ctx.statsPeriod]: related.stats.get(id) ?? [] } } : {}),
  };
}

/** `assignedTo` is the seed's string (username or team name); `assignee` is Sentry's object. */
function assigneeOf(row: Issue, related: Related) {
  if (row.assignee_user_id !== null) {
    const user = related.users.get(row.assignee_user_id);
    if (user) return { type: "user" as const, id: idString(user.id), name: user.username, email: user.email ?? undefined };
  }
  if (row.assignee_team_id !== null) {
    const team = related.teams.get(row.assignee_team_id);
    if (team) return { type: "team" as const, id: idString(team.id), name: team.name };
  }
  return null;
}

async function loadRelated(rows: readonly Issue[], ctx: SerializeContext): Promise<Related> {
  const ids = rows.map((row) => Number(row.id));
  const projectIds = [...new Set(rows.map((row) => row.project_id))];
  const userIds = [...new Set(rows.flatMap((row) => (row.assignee_user_id === null ? [] : [row.assignee_user_id])))];
  const teamIds = [...new Set(rows.flatMap((row) => (row.assignee_team_id === null ? [] : [row.assignee_team_id])))];
  const { db } = ctx;
  const [projects, users, teams, state, stats] = await Promise.all([
    projectIds.length ? db.selectFrom("projects").select(["id", "slug", "name", "platform"]).where("id", "in", projectIds).execute() : [],
    userIds.length ? db.selectFrom("users").select(["id", "username", "email", "name"]).where("id", "in", userIds).execute() : [],
    teamIds.length ? db.selectFrom("teams").select(["id", "slug", "name"]).where("id", "in", teamIds).execute() : [],
    ctx.userId !== null && ids.length
      ? db.selectFrom("issue_user_state").select(["issue_id", "is_bookmarked", "is_subscribed", "has_seen"]).where("user_id", "=", ctx.userId).where("issue_id", "in", ids).execute()
      : [],
    ctx.statsPeriod ? loadTimelines(db, ids, ctx.statsPeriod, ctx.now) : null,
  ]);
  return {
    projects: new Map(projects.map((p) => [p.id, p])),
    users: new Map(users.map((u) => [u.id, u])),
    teams: new Map(teams.map((t) => [t.id, t])),
    state: new Map(state.map((s) => [Number(s.issue_id), s])),
    stats,
  };
}

/**
 * The single-issue shape: the list item plus statusDetails, activity, 24h and 30d stats. A row
 * from `IssueRepository.findDetail` carries what it needs; another (an issue just updated) has it
 * read in one statement.
 */
export async function serializeIssueDetail(row: Issue | IssueWithDetail, ctx: SerializeContext) {
  const detail = "detail_activity" in row ? row : ((await loadDetail(ctx.db, row, ctx.userId, ctx.now)) ?? { ...row, ...NO_DETAIL });
  const item = issueListItem(row, relatedOf([detail], null, ctx.now), { ...ctx, statsPeriod: null });
  return {
    ...item,
    statusDetails: effectiveStatus(row, ctx.now).statusDetails,
    userReportCount: 0,
    activity: detail.detail_activity.map((entry) => ({
      id: idString(entry.id),
      type: entry.type,
      data: entry.data,
      dateCreated: isoDate(new Date(entry.date_ms)),
      user: entry.user_id === null ? null : { id: idString(entry.user_id), username: entry.username, name: entry.name, email: entry.email },
    })),
    stats: { "24h": timeline(detail.detail_hourly, "24h", ctx.now), "30d": timeline(detail.detail_daily, "30d", ctx.now) },
  };
}

/** What an issue deleted under an update shows: nothing related. */
const NO_DETAIL: DetailColumns = {
  related_project: null,
  related_assignee_user: null,
  related_assignee_team: null,
  related_state: null,
  related_stats: null,
  detail_hourly: [],
  detail_daily: [],
  detail_activity: [],
};

function timeline(buckets: TimelineBuckets, period: StatsPeriod, now: Date): Timeline {
  return fillTimeline(buckets, period, now);
}

/** The rows' related columns in the shape the list item reads them from. */
function relatedOf(rows: ReadonlyArray<Issue & RelatedColumns>, statsPeriod: StatsPeriod | null, now: Date): Related {
  const related: Related = { projects: new Map(), users: new Map(), teams: new Map(), state: new Map(), stats: statsPeriod ? new Map() : null };
  for (const row of rows) {
    const id = Number(row.id);
    if (row.related_project) related.projects.set(row.related_project.id, row.related_project);
    if (row.related_assignee_user) related.users.set(row.related_assignee_user.id, row.related_assignee_user);
    if (row.related_assignee_team) related.teams.set(row.related_assignee_team.id, row.related_assignee_team);
    if (row.related_state) related.state.set(id, row.related_state);
    if (statsPeriod && row.related_stats) related.stats?.set(id, timeline(row.related_stats, statsPeriod, now));
  }
  return related;
}

export type IssueListItem = Awaited<ReturnType<typeof serializeIssues>>[number];
export type IssueDetail = Awaited<ReturnType<typeof serializeIssueDetail>>;
