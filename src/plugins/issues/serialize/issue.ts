import type { Kysely } from "kysely";
import type { Database, Issue } from "../../../db/schema.js";
import { idString, isoDate } from "../../../http/format.js";
import { formatShortId } from "../short-id.js";
import { snoozeExpired, type Snooze } from "../state.js";
import { type DetailParts, loadDetailParts } from "./detail-query.js";
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

/** The list item shape of api.md §3.1, for many issues with a fixed number of queries. */
export async function serializeIssues(rows: readonly Issue[], ctx: SerializeContext) {
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
 * The single-issue shape: the list item plus statusDetails, activity, 24h and 30d stats. `parts`
 * come with the issue from `findIssueDetail`; without them (an issue just updated) they are read
 * in one statement.
 */
export async function serializeIssueDetail(row: Issue, ctx: SerializeContext, parts?: DetailParts) {
  const loaded = parts ?? (await loadDetailParts(ctx.db, row, ctx.userId, ctx.now)) ?? NO_PARTS;
  const item = issueListItem(row, relatedOf(row, loaded), { ...ctx, statsPeriod: null });
  return {
    ...item,
    statusDetails: effectiveStatus(row, ctx.now).statusDetails,
    userReportCount: 0,
    activity: loaded.activity.map((entry) => ({
      id: idString(entry.id),
      type: entry.type,
      data: entry.data,
      dateCreated: isoDate(new Date(entry.date_ms)),
      user: entry.user_id === null ? null : { id: idString(entry.user_id), username: entry.username, name: entry.name, email: entry.email },
    })),
    stats: { "24h": timeline(loaded.hourly, "24h", ctx.now), "30d": timeline(loaded.daily, "30d", ctx.now) },
  };
}

const NO_PARTS: DetailParts = { project: null, assigneeUser: null, assigneeTeam: null, state: null, hourly: [], daily: [], activity: [] };

function timeline(buckets: DetailParts["hourly"], period: StatsPeriod, now: Date) {
  return fillTimeline(new Map(buckets.map((bucket) => [bucket.bucket_ms, bucket.count])), period, now);
}

/** The detail's parts in the shape the list item reads them from. */
function relatedOf(row: Issue, parts: DetailParts): Related {
  return {
    projects: new Map(parts.project ? [[parts.project.id, parts.project]] : []),
    users: new Map(parts.assigneeUser ? [[parts.assigneeUser.id, parts.assigneeUser]] : []),
    teams: new Map(parts.assigneeTeam ? [[parts.assigneeTeam.id, parts.assigneeTeam]] : []),
    state: new Map(parts.state ? [[Number(row.id), parts.state]] : []),
    stats: null,
  };
}

export type IssueListItem = Awaited<ReturnType<typeof serializeIssues>>[number];
export type IssueDetail = Awaited<ReturnType<typeof serializeIssueDetail>>;
