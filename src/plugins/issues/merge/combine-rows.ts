import { sql, type Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";

type Trx = Transaction<Database>;

const FACETS = [
  { table: "issue_environments", columns: ["environment"] },
  { table: "issue_releases", columns: ["release"] },
  { table: "issue_tags", columns: ["key", "value"] },
  { table: "issue_search_values", columns: ["field", "value"] },
] as const;

/**
 * Moves the children's rows of the issues plugin's own tables to the parent, combining rows the
 * parent already has (one per key): the fingerprints (so later events with them group into the
 * parent), activity and comments move as they are; users, facets, stats buckets and per-user
 * state are combined. The counters are the caller's (`mergedCounters`).
 */
export async function combineIssueRows(trx: Trx, parentId: number, childIds: readonly number[]): Promise<void> {
  const children = [...childIds];
  const parent = sql<number>`${parentId}::bigint`;
  await trx.updateTable("issue_hashes").set({ issue_id: parentId }).where("issue_id", "in", children).execute();
  await trx.updateTable("issue_activity").set({ issue_id: parentId }).where("issue_id", "in", children).execute();
  await trx.updateTable("issue_comments").set({ issue_id: parentId }).where("issue_id", "in", children).execute();
  await trx
    .insertInto("issue_users")
    .columns(["issue_id", "user_key", "first_seen"])
    .expression(
      trx
        .selectFrom("issue_users")
        .select([parent.as("issue_id"), "user_key", sql<Date>`min(first_seen)`.as("first_seen")])
        .where("issue_id", "in", children)
        .groupBy("user_key"),
    )
    .onConflict((oc) =>
      oc.columns(["issue_id", "user_key"]).doUpdateSet({
        first_seen: sql`least(issue_users.first_seen, excluded.first_seen)`,
      }),
    )
    .execute();
  for (const { table, columns } of FACETS) {
    // One statement shape for the facet tables (their key columns differ): typed loosely.
    const facet = table as "issue_tags";
    await trx
      .insertInto(facet)
      .columns(["issue_id", ...(columns as readonly string[] as Array<"key" | "value">)])
      .expression(
        trx
          .selectFrom(facet)
          .select([parent.as("issue_id"), ...(columns as readonly string[] as Array<"key" | "value">)])
          .distinct()
          .where("issue_id", "in", children),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  for (const table of ["issue_stats_hourly", "issue_stats_daily"] as const) {
    await trx
      .insertInto(table)
      .columns(["issue_id", "bucket", "count"])
      .expression(
        trx
          .selectFrom(table)
          .select([parent.as("issue_id"), "bucket", sql<number>`sum(count)::integer`.as("count")])
          .where("issue_id", "in", children)
          .groupBy("bucket"),
      )
      .onConflict((oc) =>
        oc.columns(["issue_id", "bucket"]).doUpdateSet({ count: sql`${sql.ref(`${table}.count`)} + excluded.count` }),
      )
      .execute();
  }
  await combineUserState(trx, parentId, children);
  for (const table of [
    "issue_users",
    ...FACETS.map((f) => f.table),
    "issue_stats_hourly",
    "issue_stats_daily",
  ] as const)
    await trx.deleteFrom(table).where("issue_id", "in", children).execute();
}

/**
 * Per-user state: a bookmark or subscription on any of the issues holds for the merged one
 * (OR-ed); "seen" only when the user had seen every one of them that they have state for
 * (AND-ed: new events of a child are news on the parent).
 */
async function combineUserState(trx: Trx, parentId: number, children: number[]): Promise<void> {
  await trx
    .insertInto("issue_user_state")
    .columns(["issue_id", "user_id", "is_bookmarked", "is_subscribed", "has_seen", "subscription_reason"])
    .expression(
      trx
        .selectFrom("issue_user_state")
        .select([
          sql<number>`${parentId}::bigint`.as("issue_id"),
          "user_id",
          sql<boolean>`bool_or(is_bookmarked)`.as("is_bookmarked"),
          sql<boolean>`bool_or(is_subscribed)`.as("is_subscribed"),
          sql<boolean>`bool_and(has_seen)`.as("has_seen"),
          sql<string | null>`max(subscription_reason) FILTER (WHERE is_subscribed)`.as("subscription_reason"),
        ])
        .where("issue_id", "in", children)
        .groupBy("user_id"),
    )
    .onConflict((oc) =>
      oc.columns(["issue_id", "user_id"]).doUpdateSet({
        is_bookmarked: sql`issue_user_state.is_bookmarked OR excluded.is_bookmarked`,
        is_subscribed: sql`issue_user_state.is_subscribed OR excluded.is_subscribed`,
        has_seen: sql`issue_user_state.has_seen AND excluded.has_seen`,
        subscription_reason: sql`coalesce(issue_user_state.subscription_reason, excluded.subscription_reason)`,
      }),
    )
    .execute();
  await trx.deleteFrom("issue_user_state").where("issue_id", "in", children).execute();
}

/**
 * The parent's counters after the merge: events summed, the users of the combined `issue_users`
 * (a user of two merged issues counts once), first and last sightings (and their releases) of
 * all of them, the comments summed. The parent keeps its title, status and assignee.
 */
export async function mergedCounters(trx: Trx, parent: Issue, children: readonly Issue[]) {
  const all = [parent, ...children];
  const earliest = all.reduce((a, b) => (b.first_seen < a.first_seen ? b : a));
  const latest = all.reduce((a, b) => (b.last_seen > a.last_seen ? b : a));
  const withFirst = all.filter((i) => i.first_release !== null).sort((a, b) => +a.first_seen - +b.first_seen);
  const withLast = all.filter((i) => i.last_release !== null).sort((a, b) => +b.last_seen - +a.last_seen);
  const users = await trx
    .selectFrom("issue_users")
    .select(sql<number>`count(*)::integer`.as("n"))
    .where("issue_id", "=", Number(parent.id))
    .executeTakeFirstOrThrow();
  return {
    times_seen: all.reduce((sum, issue) => sum + Number(issue.times_seen), 0),
    user_count: users.n,
    first_seen: earliest.first_seen,
    last_seen: latest.last_seen,
    first_release: withFirst[0]?.first_release ?? null,
    last_release: withLast[0]?.last_release ?? null,
    num_comments: all.reduce((sum, issue) => sum + issue.num_comments, 0),
  };
}
