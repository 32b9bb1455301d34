import { type RawBuilder, sql } from "kysely";

/**
 * Per project, the instant before which its data has expired (docs/operations.md, "Retention"):
 * `now` less the project's own `retention_days`, or the instance's `retention.days`. A SQL
 * expression over a `projects` row aliased `p`, so that every plugin expiring rows by project
 * applies the same rule.
 */
export function projectRetentionCutoff(defaultDays: number, now: Date): RawBuilder<Date> {
  return sql<Date>`${now}::timestamptz - make_interval(days => coalesce(p.retention_days, ${defaultDays}))`;
}
