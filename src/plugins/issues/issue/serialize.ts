import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";
import type { IssueUserReportCounts } from "../user-reports.js";
import { idString, isoDate } from "../../../http/format.js";
import type { ListRow } from "../list/columns.js";
import { formatShortId } from "../short-id.js";
import { snoozeExpired, type Snooze } from "../state.js";
import { type DetailColumns, type DetailUser, type IssueWithDetail, loadDetail } from "./detail-query.js";
import { hasRelatedColumns, type RelatedColumns, type TimelineBuckets } from "./related-sql.js";
import { fillTimeline, loadTimelines, periodSpec, type Timeline, type TimelineSpec } from "./stats.js";

export interface SerializeContext {
  db: Kysely<Database>;
  /** The calling user, for per-user flags; null for organization tokens. */
  userId: number | null;
  now: Date;
  /** The stats series the list items carry (`stats: {[key]: timeline}`), or null for none. */
  stats: TimelineSpec | null;
  /** The buckets of the request's time window (counts in the window), or null without one. */
  window: TimelineSpec | null;
  /** The issue's permalink: the host's template, else its absolute API URL. */
  permalink(issue: { id: number; shortId: string; project: { slug: string } }): string;
  organizationSlug: string;
  /** The user reports' counts (`userReportCount`), null without the user-feedback plugin. */
  userReports: IssueUserReportCounts | null;
}

/**
 * What a list item is made from: an issue row, or a list page's row (list/columns.ts) with only
 * the shown columns and its timestamps already formatted.
 */
export type ItemRow = Omit<ListRow, "first_seen" | "last_seen"> & {
  first_seen: Date | string;
  last_seen: Date | string;
};

/** A timestamp in the API's format; list rows read it as text in that format already. */
const iso = (value: Date | string) => (typeof value === "string" ? value : isoDate(value));

/** The requesting user's flags on an issue. */
interface IssueUserFlags {
  is_bookmarked: boolean;
  is_subscribed: boolean;
  has_seen: boolean;
  subscription_reason: string | null;
}

interface Related {
  projects: Map<number, { id: number; slug: string; name: string; platform: string | null }>;
  users: Map<number, { id: number; username: string; email: string | null; name: string }>;
  teams: Map<number, { id: number; slug: string; name: string }>;
  state: Map<number, IssueUserFlags>;
  stats: Map<number, Timeline> | null;
  /** Events in the time window, by issue (only with a window). */
  windowCounts: Map<number, number> | null;
  unhandled: Set<number>;
  /** User reports by issue. */
  userReports: Map<number, number>;
}

/**
 * The issue list item shape (docs/sentry-compatibility.md, "Response shapes"), for many issues
 * with a fixed number of queries: none when the rows were read with their related columns
 * (related-sql.ts), else one per related table.
 */
export async function serializeIssues(
  rows: ReadonlyArray<ItemRow | (ItemRow & RelatedColumns)>,
  ctx: SerializeContext,
) {
  if (rows.length > 0 && rows.every(hasRelatedColumns)) {
    const related = relatedOf(rows as ReadonlyArray<ItemRow & RelatedColumns>, ctx);
    return rows.map((row) => issueListItem(row, related, ctx));
  }
  const related = await loadRelated(rows, ctx);
  return rows.map((row) => issueListItem(row, related, ctx));
}

/** What a snooze that has run out looks like: already unresolved, even before the timer runs. */
export function effectiveStatus(row: Pick<Issue, "status" | "snooze" | "substatus" | "status_details">, now: Date) {
  if (row.status === "ignored" && snoozeExpired(row.snooze as Snooze | null, now)) {
    return { status: "unresolved" as const, substatus: "ongoing", statusDetails: {} };
  }
  return { status: row.status, substatus: row.substatus, statusDetails: row.status_details };
}

/** Sentry's metadata always names the title (its `materialize_metadata`); older rows lack it. */
function metadataOf(row: Pick<Issue, "metadata" | "title">): Record<string, unknown> {
  return typeof row.metadata.title === "string" ? row.metadata : { ...row.metadata, title: row.title };
}

/**
 * Sentry's list item: Faultline's fields plus every field Sentry's published schema requires,
 * from real data where Faultline has it and Sentry's own empty values otherwise (no priority,
 * Seer, plugins, annotations, sessions or ownership rules here).
 */
function issueListItem(row: ItemRow, related: Related, ctx: SerializeContext) {
  const id = Number(row.id);
  const project = related.projects.get(row.project_id);
  const slug = project?.slug ?? "";
  const shortId = formatShortId(slug, row.short_number);
  const state = related.state.get(id);
  const { status, substatus, statusDetails } = effectiveStatus(row, ctx.now);
  const assignee = assigneeOf(row, related);
  const firstSeen = iso(row.first_seen);
  const lastSeen = iso(row.last_seen);
  const lifetime = { count: String(row.times_seen), userCount: row.user_count, firstSeen, lastSeen };
  const windowCount = related.windowCounts?.get(id);
  const stats = related.stats && ctx.stats ? { [ctx.stats.key]: related.stats.get(id) ?? [] } : null;
  return {
    id: idString(id),
    shareId: row.share_id,
    shortId,
    title: row.title,
    culprit: row.culprit,
    permalink: ctx.permalink({ id, shortId, project: { slug } }),
    logger: row.logger ?? null,
    level: row.level,
    status,
    statusDetails,
    substatus,
    isPublic: row.is_public,
    platform: row.platform,
    priority: null,
    priorityLockedAt: null,
    seerFixabilityScore: null,
    seerAutofixLastTriggered: null,
    project: { id: idString(row.project_id), name: project?.name ?? "", slug, platform: project?.platform ?? null },
    type: row.type,
    issueType: "error",
    issueCategory: "error",
    metadata: metadataOf(row),
    numComments: row.num_comments,
    userReportCount: related.userReports.get(id) ?? 0,
    assignedTo: assignee?.name ?? null,
    assignee,
    isBookmarked: state?.is_bookmarked ?? false,
    isSubscribed: state?.is_subscribed ?? false,
    // Sentry's shape: why the user follows the issue (`assigned`, `commented`, `status_change`, `explicit`).
    subscriptionDetails:
      state?.is_subscribed && state.subscription_reason ? { reason: state.subscription_reason } : null,
    hasSeen: state?.has_seen ?? false,
    annotations: [],
    isUnhandled: related.unhandled.has(id),
    // With a time window (Sentry's statsPeriod or start/end) the count is the window's; `lifetime` keeps the totals.
    count: windowCount === undefined ? lifetime.count : String(windowCount),
    userCount: row.user_count,
    firstSeen,
    lastSeen,
    ...(stats ? { stats } : {}),
    lifetime: { ...lifetime, stats: null },
    filtered: null,
    sessionCount: 0,
    inbox: null,
    owners: null,
    pluginActions: [],
    pluginIssues: [],
    integrationIssues: [],
    sentryAppIssues: [],
    latestEventHasAttachments: false,
  };
}

/** `assignedTo` is the seed's string (username or team name); `assignee` is Sentry's object. */
function assigneeOf(row: Pick<Issue, "assignee_user_id" | "assignee_team_id">, related: Related) {
  if (row.assignee_user_id !== null) {
    const user = related.users.get(row.assignee_user_id);
    if (user)
      return { type: "user" as const, id: idString(user.id), name: user.username, email: user.email ?? undefined };
  }
  if (row.assignee_team_id !== null) {
    const team = related.teams.get(row.assignee_team_id);
    if (team) return { type: "team" as const, id: idString(team.id), name: team.name };
  }
  return null;
}

async function loadRelated(rows: readonly ItemRow[], ctx: SerializeContext): Promise<Related> {
  const ids = rows.map((row) => Number(row.id));
  const projectIds = [...new Set(rows.map((row) => row.project_id))];
  const userIds = [...new Set(rows.flatMap((row) => (row.assignee_user_id === null ? [] : [row.assignee_user_id])))];
  const teamIds = [...new Set(rows.flatMap((row) => (row.assignee_team_id === null ? [] : [row.assignee_team_id])))];
  const { db } = ctx;
  const [projects, users, teams, state, stats, unhandled, userReports] = await Promise.all([
    projectIds.length
      ? db.selectFrom("projects").select(["id", "slug", "name", "platform"]).where("id", "in", projectIds).execute()
      : [],
    userIds.length
      ? db.selectFrom("users").select(["id", "username", "email", "name"]).where("id", "in", userIds).execute()
      : [],
    teamIds.length ? db.selectFrom("teams").select(["id", "slug", "name"]).where("id", "in", teamIds).execute() : [],
    ctx.userId !== null && ids.length
      ? db
          .selectFrom("issue_user_state")
          .select(["issue_id", "is_bookmarked", "is_subscribed", "has_seen", "subscription_reason"])
          .where("user_id", "=", ctx.userId)
          .where("issue_id", "in", ids)
          .execute()
      : [],
    ctx.stats ? loadTimelines(db, ids, ctx.stats) : null,
    ids.length
      ? db
          .selectFrom("issue_tags")
          .select("issue_id")
          .where("issue_id", "in", ids)
          .where("key", "=", "handled")
          .where("value", "=", "no")
          .execute()
      : [],
    ctx.userReports ? ctx.userReports.countByIssue(db, ids) : new Map<number, number>(),
  ]);
  return {
    projects: new Map(projects.map((p) => [p.id, p])),
    users: new Map(users.map((u) => [u.id, u])),
    teams: new Map(teams.map((t) => [t.id, t])),
    state: new Map(state.map((s) => [Number(s.issue_id), s])),
    stats,
    windowCounts: null,
    unhandled: new Set(unhandled.map((row) => Number(row.issue_id))),
    userReports,
  };
}

const userOf = (user: DetailUser) => ({
  id: idString(user.id),
  username: user.username,
  name: user.name,
  email: user.email,
});

type ReleaseRow = {
  version: string;
  date_created: Date;
  first_event: Date | null;
  last_event: Date | null;
  new_groups: number;
};

/**
 * Sentry's release summary of `firstRelease` / `lastRelease`: the project's release row ingest
 * keeps (docs/releases-and-source-maps.md, "Releases API").
 */
function releaseOf(version: string | null, rows: ReleaseRow[]) {
  if (version === null) return null;
  const row = rows.find((candidate) => candidate.version === version);
  const iso = (date: Date | null | undefined) => (date ? isoDate(date) : null);
  return {
    version,
    shortVersion: version.includes("@") ? version.slice(version.lastIndexOf("@") + 1) : version,
    dateCreated: iso(row?.date_created),
    dateReleased: null,
    firstEvent: iso(row?.first_event),
    lastEvent: iso(row?.last_event),
    newGroups: row?.new_groups ?? 0,
  };
}

async function releaseRows(ctx: SerializeContext, row: Issue): Promise<ReleaseRow[]> {
  const versions = [
    ...new Set([row.first_release, row.last_release].filter((version): version is string => version !== null)),
  ];
  if (versions.length === 0) return [];
  return ctx.db
    .selectFrom("releases")
    .select(["version", "date_created", "first_event", "last_event", "new_groups"])
    .where("organization_id", "=", row.organization_id)
    .where("project_id", "=", row.project_id)
    .where("version", "in", versions)
    .execute();
}

/**
 * The single-issue shape: the list item plus statusDetails, activity, 24h and 30d stats, tags,
 * participants, seenBy and releases. A row from `IssueRepository.findDetail` carries what it
 * needs; another (an issue just updated) has it read in one statement.
 */
export async function serializeIssueDetail(row: Issue | IssueWithDetail, ctx: SerializeContext) {
  const detail =
    "detail_activity" in row
      ? row
      : ((await loadDetail(ctx.db, row, ctx.userId, ctx.now, ctx.userReports)) ?? { ...row, ...NO_DETAIL });
  const releases = await releaseRows(ctx, row);
  const {
    stats: _listStats,
    lifetime: _lifetime,
    filtered: _filtered,
    ...item
  } = issueListItem(row, relatedOf([detail], { ...ctx, stats: null, window: null }), ctx);
  return {
    ...item,
    firstRelease: releaseOf(row.first_release, releases),
    lastRelease: releaseOf(row.last_release, releases),
    participants: detail.detail_participants.map(userOf),
    seenBy: detail.detail_seen_by.map(userOf),
    tags: detail.detail_tags.map((tag) => ({ key: tag.key, name: tag.key, uniqueValues: tag.unique_values })),
    pluginContexts: [],
    activity: detail.detail_activity.map((entry) => ({
      id: idString(entry.id),
      type: entry.type,
      data: entry.data,
      dateCreated: isoDate(new Date(entry.date_ms)),
      user:
        entry.user_id === null
          ? null
          : { id: idString(entry.user_id), username: entry.username, name: entry.name, email: entry.email },
    })),
    stats: {
      "24h": timeline(detail.detail_hourly, periodSpec("24h", ctx.now)),
      "30d": timeline(detail.detail_daily, periodSpec("30d", ctx.now)),
    },
  };
}

/** What an issue deleted under an update shows: nothing related. */
const NO_DETAIL: DetailColumns = {
  related_project: null,
  related_assignee_user: null,
  related_assignee_team: null,
  related_state: null,
  related_stats: null,
  related_window_count: null,
  related_unhandled: false,
  related_user_reports: 0,
  detail_hourly: [],
  detail_daily: [],
  detail_activity: [],
  detail_tags: [],
  detail_participants: [],
  detail_seen_by: [],
};

function timeline(buckets: TimelineBuckets, spec: TimelineSpec): Timeline {
  return fillTimeline(buckets, spec);
}

/** The rows' related columns in the shape the list item reads them from. */
function relatedOf(
  rows: ReadonlyArray<ItemRow & RelatedColumns>,
  ctx: Pick<SerializeContext, "stats" | "window">,
): Related {
  const related: Related = {
    projects: new Map(),
    users: new Map(),
    teams: new Map(),
    state: new Map(),
    stats: ctx.stats ? new Map() : null,
    windowCounts: ctx.window ? new Map() : null,
    unhandled: new Set(),
    userReports: new Map(),
  };
  for (const row of rows) {
    const id = Number(row.id);
    if (row.related_project) related.projects.set(row.related_project.id, row.related_project);
    if (row.related_assignee_user) related.users.set(row.related_assignee_user.id, row.related_assignee_user);
    if (row.related_assignee_team) related.teams.set(row.related_assignee_team.id, row.related_assignee_team);
    if (row.related_state) related.state.set(id, row.related_state);
    if (ctx.stats && row.related_stats) related.stats?.set(id, timeline(row.related_stats, ctx.stats));
    if (row.related_window_count !== null) related.windowCounts?.set(id, Number(row.related_window_count));
    if (row.related_unhandled) related.unhandled.add(id);
    if (row.related_user_reports) related.userReports.set(id, Number(row.related_user_reports));
  }
  return related;
}

export type IssueListItem = Awaited<ReturnType<typeof serializeIssues>>[number];
export type IssueDetail = Awaited<ReturnType<typeof serializeIssueDetail>>;
