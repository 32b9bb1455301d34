import { type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { AssigneeRef, Comparison, DateValue, IsValue, SearchFilter, SearchTerm, UserRef } from "./ast.js";
import { searchError } from "./errors.js";
import { EVENT_FIELDS, type EventField } from "./keys.js";

/** Whose search this is: `me` and the organization scope of every subquery come from here. */
export interface SearchContext {
  organizationId: number;
  /** The calling user; null for organization tokens (then `me` is an error). */
  userId: number | null;
  /** Relative dates (`-24h`) count back from this instant. */
  now: Date;
}

type IssuesEb = ExpressionBuilder<Database, "issues">;
type Condition = Expression<SqlBool>;

const DAY_MS = 86_400_000;
/** Postgres `integer` ids: a longer digit string must not reach the database as an int4. */
const INT4_ID = /^\d{1,9}$/;

/**
 * The WHERE condition of a parsed query on `issues`, all terms ANDed. Facets (environments,
 * releases, tags, per-user state, links) are EXISTS subqueries on their own tables keyed by
 * issue id, so the list can still walk an `issues_by_*` index in sort order.
 */
export function searchCondition(eb: IssuesEb, terms: readonly SearchTerm[], ctx: SearchContext): Condition {
  return eb.and(terms.map((term) => termCondition(eb, term, ctx)));
}

function termCondition(eb: IssuesEb, term: SearchTerm, ctx: SearchContext): Condition {
  if (term.type === "text") return textCondition(eb, term.text);
  const condition = filterCondition(eb, term, ctx);
  // NOT over a nullable comparison (substatus, assignee) would be NULL and drop the row: coalesce first.
  return term.negated ? eb.not(eb.fn.coalesce(condition, sql<boolean>`false`)) : condition;
}

function filterCondition(eb: IssuesEb, filter: SearchFilter, ctx: SearchContext): Condition {
  switch (filter.type) {
    case "is":
      return eb.or(filter.values.map((value) => isCondition(eb, value, ctx)));
    case "assigned":
      return eb.or(filter.values.map((ref) => assignedCondition(eb, ref, ctx)));
    case "bookmarks":
    case "subscribed":
      return eb.or(
        filter.values.map((ref) =>
          userFlagCondition(eb, filter.type === "bookmarks" ? "is_bookmarked" : "is_subscribed", ref, ctx),
        ),
      );
    case "level":
      return eb("issues.level", "in", filter.values);
    case "environment":
      return eb.exists(
        eb
          .selectFrom("issue_environments as f")
          .select(sql.lit(1).as("one"))
          .whereRef("f.issue_id", "=", "issues.id")
          .where(() => valueMatches(sql.ref("f.environment"), filter.values)),
      );
    case "release":
      return eb.exists(
        eb
          .selectFrom("issue_releases as f")
          .select(sql.lit(1).as("one"))
          .whereRef("f.issue_id", "=", "issues.id")
          .where(() => releaseMatches(eb, sql.ref("f.release"), filter.values)),
      );
    case "firstRelease":
      return releaseMatches(eb, sql.ref("issues.first_release"), filter.values);
    case "date":
      return dateCondition(
        eb,
        filter.field === "firstSeen" ? "issues.first_seen" : "issues.last_seen",
        filter.op,
        filter.value,
        ctx.now,
      );
    case "count":
      return eb(filter.field === "timesSeen" ? "issues.times_seen" : "issues.user_count", filter.op, filter.value);
    case "has":
      return eb.or(filter.keys.map((key) => hasCondition(eb, key)));
    case "tag":
      if (filter.key === USER_TAG) return eb.exists(userRows(eb).where(() => valueMatches(USER_KEY, filter.values)));
      return eb.exists(
        tagRows(eb)
          .where("f.key", "=", filter.key)
          .where(() => valueMatches(sql.ref("f.value"), filter.values)),
      );
    case "field":
      return fieldCondition(eb, filter.field, filter.values);
    case "handled":
      // The `handled` tag is `no` when any exception of the event was unhandled (grouping/tags.ts).
      return eb.exists(
        tagRows(eb)
          .where("f.key", "=", "handled")
          .where("f.value", "=", filter.handled ? "yes" : "no"),
      );
    case "message":
      return eb.or(filter.values.map((value) => textCondition(eb, value)));
  }
}

const isEventField = (key: string): key is EventField => (EVENT_FIELDS as readonly string[]).includes(key);

/** The derived `user` tag is each event's user key, kept per issue in `issue_users` rather than as a tag. */
const USER_TAG = "user";
const USER_KEY = sql.ref("u.user_key");
/** The prefix of the user key a user field makes (`id:42`): that field's values are found in `issue_users`. */
const USER_KEY_PREFIX: Partial<Record<EventField, string>> = {
  "user.id": "id:",
  "user.email": "email:",
  "user.username": "username:",
  "user.ip": "ip:",
};

function hasCondition(eb: IssuesEb, key: string): Condition {
  if (key === USER_TAG) return eb.exists(userRows(eb));
  if (!isEventField(key)) return eb.exists(tagRows(eb).where("f.key", "=", key));
  return fieldCondition(eb, key, ["*"]);
}

/**
 * An event field's values: in `issue_search_values`, or, for the user field an event's user is
 * counted by, in its user key (grouping/search-values.ts leaves that one out of the values).
 */
function fieldCondition(eb: IssuesEb, field: EventField, values: readonly string[]): Condition {
  const stored = eb.exists(
    fieldRows(eb)
      .where("v.field", "=", field)
      .where(() => valueMatches(sql.ref("v.value"), values)),
  );
  const prefix = USER_KEY_PREFIX[field];
  if (prefix === undefined) return stored;
  const keyed = values.map((value) => `${prefix}${value}`);
  return eb.or([stored, eb.exists(userRows(eb).where(() => valueMatches(USER_KEY, keyed)))]);
}

const tagRows = (eb: IssuesEb) =>
  eb.selectFrom("issue_tags as f").select(sql.lit(1).as("one")).whereRef("f.issue_id", "=", "issues.id");

const userRows = (eb: IssuesEb) =>
  eb.selectFrom("issue_users as u").select(sql.lit(1).as("one")).whereRef("u.issue_id", "=", "issues.id");

const fieldRows = (eb: IssuesEb) =>
  eb.selectFrom("issue_search_values as v").select(sql.lit(1).as("one")).whereRef("v.issue_id", "=", "issues.id");

/** Any of the values: exact ones by equality, ones with `*` as LIKE patterns. */
function valueMatches(column: RawBuilder<unknown>, values: readonly string[]): Condition {
  const exact = values.filter((value) => !value.includes("*"));
  const parts = values
    .filter((value) => value.includes("*"))
    .map((glob) => sql<SqlBool>`${column} like ${likePattern(glob)}`);
  if (exact.length > 0) parts.unshift(sql<SqlBool>`${column} in (${sql.join(exact)})`);
  return parts.length === 1 ? (parts[0] as Condition) : sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** As valueMatches, with `latest` meaning the newest release of the issue's project. */
function releaseMatches(eb: IssuesEb, column: RawBuilder<unknown>, values: readonly string[]): Condition {
  const named = values.filter((value) => value !== "latest");
  const newest = eb
    .selectFrom("releases as r")
    .select("r.version")
    .whereRef("r.project_id", "=", "issues.project_id")
    .orderBy("r.date_created", "desc")
    .orderBy("r.id", "desc")
    .limit(1);
  const latest = sql<SqlBool>`${column} = (${newest})`;
  if (named.length === values.length) return valueMatches(column, values);
  return named.length === 0 ? latest : sql<SqlBool>`(${latest} or ${valueMatches(column, named)})`;
}

/** `*` → `%`; LIKE's own `%`, `_` and `\\` are taken literally. */
function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (ch) => `\\${ch}`).replaceAll("*", "%");
}

function isCondition(eb: IssuesEb, value: IsValue, ctx: SearchContext): Condition {
  switch (value) {
    case "for_review":
      // Sentry's review inbox: unresolved issues that are new, regressed or escalating.
      return eb.and([
        eb("issues.status", "=", "unresolved"),
        eb("issues.substatus", "in", ["new", "regressed", "escalating"]),
      ]);
    case "unresolved":
    case "resolved":
    case "ignored":
      // An ignored issue whose snooze time has passed still says `ignored` here until the expiry
      // task (every 15 s) flips it; a range over two statuses would cost the status index.
      return eb("issues.status", "=", value);
    case "assigned":
      return eb.or([eb("issues.assignee_user_id", "is not", null), eb("issues.assignee_team_id", "is not", null)]);
    case "unassigned":
      return unassigned(eb);
    case "linked":
    case "unlinked": {
      const linked = eb.exists(
        eb
          .selectFrom("external_issues as x")
          .select(sql.lit(1).as("one"))
          .whereRef("x.issue_id", "=", "issues.id")
          .where("x.organization_id", "=", ctx.organizationId),
      );
      return value === "linked" ? linked : eb.not(linked);
    }
    default:
      return eb("issues.substatus", "=", value);
  }
}

const unassigned = (eb: IssuesEb) =>
  eb.and([eb("issues.assignee_user_id", "is", null), eb("issues.assignee_team_id", "is", null)]);

function assignedCondition(eb: IssuesEb, ref: AssigneeRef, ctx: SearchContext): Condition {
  switch (ref.kind) {
    case "me":
      return eb("issues.assignee_user_id", "=", requireUser(ctx, "assigned:me"));
    case "none":
      return unassigned(eb);
    case "my_teams":
      return eb(
        "issues.assignee_team_id",
        "in",
        eb
          .selectFrom("team_members as tm")
          .innerJoin("organization_members as m", "m.id", "tm.member_id")
          .select("tm.team_id")
          .where("m.organization_id", "=", ctx.organizationId)
          .where("m.user_id", "=", requireUser(ctx, "assigned:my_teams")),
      );
    case "team":
      return eb(
        "issues.assignee_team_id",
        "in",
        eb
          .selectFrom("teams as t")
          .select("t.id")
          .where("t.organization_id", "=", ctx.organizationId)
          .where("t.slug", "=", ref.slug),
      );
    case "user":
      // As `assignedTo` on PUT: a member by username, email or id, else a team by name.
      return eb.or([
        eb("issues.assignee_user_id", "in", memberIds(eb, ref.ref, ctx)),
        eb(
          "issues.assignee_team_id",
          "in",
          eb
            .selectFrom("teams as t")
            .select("t.id")
            .where("t.organization_id", "=", ctx.organizationId)
            .where((t) => t.or([t(t.fn("lower", ["t.name"]), "=", ref.ref.toLowerCase()), t("t.slug", "=", ref.ref)])),
        ),
      ]);
  }
}

function userFlagCondition(
  eb: IssuesEb,
  flag: "is_bookmarked" | "is_subscribed",
  ref: UserRef,
  ctx: SearchContext,
): Condition {
  const query = eb
    .selectFrom("issue_user_state as s")
    .select(sql.lit(1).as("one"))
    .whereRef("s.issue_id", "=", "issues.id")
    .where(`s.${flag}`, "=", true);
  return eb.exists(
    ref.kind === "me"
      ? query.where("s.user_id", "=", requireUser(ctx, `${flag === "is_bookmarked" ? "bookmarks" : "subscribed"}:me`))
      : query.where("s.user_id", "in", memberIds(eb, ref.ref, ctx)),
  );
}

/** Ids of this organization's members matching a username or email (case-insensitive) or id. */
function memberIds(eb: IssuesEb, ref: string, ctx: SearchContext) {
  const lowered = ref.toLowerCase();
  return eb
    .selectFrom("users as u")
    .innerJoin("organization_members as m", "m.user_id", "u.id")
    .select("u.id")
    .where("m.organization_id", "=", ctx.organizationId)
    .where((u) =>
      u.or([
        u(u.fn("lower", ["u.username"]), "=", lowered),
        u(u.fn("lower", ["u.email"]), "=", lowered),
        ...(INT4_ID.test(ref) ? [u("u.id", "=", Number(ref))] : []),
      ]),
    );
}

function requireUser(ctx: SearchContext, token: string): number {
  if (ctx.userId === null) throw searchError(`"${token}" needs a user token`);
  return ctx.userId;
}

function dateCondition(
  eb: IssuesEb,
  column: "issues.first_seen" | "issues.last_seen",
  op: Comparison,
  value: DateValue,
  now: Date,
): Condition {
  const date = value.kind === "relative" ? new Date(now.getTime() - value.ms) : value.date;
  if (op === "=" && value.kind === "absolute" && value.precision === "day") {
    return eb.and([eb(column, ">=", date), eb(column, "<", new Date(date.getTime() + DAY_MS))]);
  }
  return eb(column, op, date);
}

/** Each word or phrase must occur, case-insensitively, in the title, culprit or message (`*` is a wildcard). */
function textCondition(eb: IssuesEb, text: string): Condition {
  const pattern = `%${likePattern(text)}%`;
  return eb.or([
    eb("issues.title", "ilike", pattern),
    eb("issues.culprit", "ilike", pattern),
    eb("issues.message", "ilike", pattern),
  ]);
}
