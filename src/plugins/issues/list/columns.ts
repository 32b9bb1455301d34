import { type SelectQueryBuilder, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";

/**
 * The issue columns a list item shows (issue/serialize.ts), without the ones it does not
 * (message, resolution, organization, deleted_at, …): every column of 100 rows is a value the
 * driver decodes and the garbage collector frees.
 */
const SHOWN = [
  "issues.id",
  "issues.project_id",
  "issues.short_number",
  "issues.type",
  "issues.title",
  "issues.culprit",
  "issues.level",
  "issues.platform",
  "issues.metadata",
  "issues.status",
  "issues.substatus",
  "issues.status_details",
  "issues.snooze",
  "issues.times_seen",
  "issues.user_count",
  "issues.assignee_user_id",
  "issues.assignee_team_id",
  "issues.is_public",
  "issues.share_id",
  "issues.num_comments",
  "issues.logger",
] as const;

type ShownColumn = (typeof SHOWN)[number] extends `issues.${infer C}` ? C : never;

/**
 * A list page's row: the shown columns, and first and last seen already in the API's format
 * (ISO 8601 UTC, milliseconds): the driver would parse each into a Date only for the serializer
 * to format it back, 200 times a page.
 */
export type ListRow = Pick<Issue, ShownColumn> & { first_seen: string; last_seen: string };

/**
 * A timestamp as `toISOString()` spells it: UTC, milliseconds truncated as the `pg` driver
 * truncates a timestamp to a Date (to_char's `MS` truncates the microseconds too).
 */
const isoText = (column: "issues.first_seen" | "issues.last_seen") =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Selects a {@link ListRow} from a query of issues. */
export function selectListColumns<O>(query: SelectQueryBuilder<Database, "issues", O>) {
  return query
    .select(SHOWN)
    .select([isoText("issues.first_seen").as("first_seen"), isoText("issues.last_seen").as("last_seen")]);
}
