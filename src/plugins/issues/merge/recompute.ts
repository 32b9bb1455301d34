import type { Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { IssueEventSummary } from "../../event-store/index.js";
import type { Issue } from "../tables.js";

type Trx = Transaction<Database>;

const DERIVED_TABLES = [
  "issue_users",
  "issue_environments",
  "issue_releases",
  "issue_tags",
  "issue_search_values",
  "issue_stats_hourly",
  "issue_stats_daily",
] as const;

/**
 * Rewrites what an issue derives from its events — users, environments, releases, tags, the
 * hourly and daily buckets and the counters — from its stored events (`summary`), after an
 * unmerge moved some of them. Events already dropped by retention are not counted: the counters
 * become those of the stored events. An issue left without events keeps its sightings.
 */
export async function rewriteFromEvents(trx: Trx, issue: Issue, summary: IssueEventSummary): Promise<void> {
  const issueId = Number(issue.id);
  for (const table of DERIVED_TABLES) await trx.deleteFrom(table).where("issue_id", "=", issueId).execute();
  const insert = async <T extends (typeof DERIVED_TABLES)[number]>(table: T, rows: unknown[]) => {
    if (rows.length > 0)
      await trx
        .insertInto(table)
        .values(rows as never)
        .execute();
  };
  await insert(
    "issue_users",
    summary.users.map((user) => ({ issue_id: issueId, user_key: user.userKey, first_seen: user.firstSeen })),
  );
  await insert(
    "issue_environments",
    summary.environments.map((environment) => ({ issue_id: issueId, environment })),
  );
  await insert(
    "issue_releases",
    summary.releases.map((release) => ({ issue_id: issueId, release })),
  );
  await insert(
    "issue_tags",
    summary.tags.map(([key, value]) => ({ issue_id: issueId, key, value })),
  );
  await insert(
    "issue_search_values",
    summary.searchValues.map(([field, value]) => ({ issue_id: issueId, field, value })),
  );
  await insert(
    "issue_stats_hourly",
    summary.hourly.map((b) => ({ issue_id: issueId, ...b })),
  );
  await insert(
    "issue_stats_daily",
    summary.daily.map((b) => ({ issue_id: issueId, ...b })),
  );
  const latest = summary.latest;
  await trx
    .updateTable("issues")
    .set({
      times_seen: summary.count,
      user_count: summary.users.length,
      first_seen: summary.firstSeen ?? issue.first_seen,
      last_seen: summary.lastSeen ?? issue.last_seen,
      first_release: summary.firstRelease,
      last_release: summary.lastRelease,
      // The newest event names the issue, as at ingest.
      ...(latest && { title: latest.title, culprit: latest.culprit, message: latest.message, level: latest.level }),
    })
    .where("id", "=", issueId)
    .execute();
}
