import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { TimeRange } from "../../../http/time-range.js";

/** What Sentry's stats_v2 groups by. */
export const OUTCOME_GROUPS = ["outcome", "reason", "category", "project"] as const;
export type OutcomeGroup = (typeof OUTCOME_GROUPS)[number];

export interface OutcomeStatsQuery {
  organizationId: number;
  range: TimeRange;
  intervalMs: number;
  groupBy: readonly OutcomeGroup[];
  /** Empty: every project of the organization. */
  projectIds: readonly number[];
  categories: readonly string[];
  outcomes: readonly string[];
}

export interface OutcomeStats {
  start: string;
  end: string;
  intervals: string[];
  groups: Array<{
    by: Record<string, string | number>;
    totals: { "sum(quantity)": number };
    series: { "sum(quantity)": number[] };
  }>;
}

/**
 * Sums the outcome counters of a window into Sentry's stats_v2 shape: one series per group,
 * buckets of `intervalMs` aligned to it (the window is widened to whole buckets, as Sentry does).
 */
export async function outcomeStats(db: Kysely<Database>, query: OutcomeStatsQuery): Promise<OutcomeStats> {
  const first = Math.floor(query.range.start.getTime() / query.intervalMs) * query.intervalMs;
  const end = Math.ceil(query.range.end.getTime() / query.intervalMs) * query.intervalMs;
  const buckets = Math.max(1, (end - first) / query.intervalMs);
  let rows = db
    .selectFrom("ingest_outcomes")
    .select(["project_id", "hour", "category", "outcome", "reason", "quantity"])
    .where("organization_id", "=", query.organizationId)
    .where("hour", ">=", new Date(first))
    .where("hour", "<", new Date(end));
  if (query.projectIds.length > 0) rows = rows.where("project_id", "in", [...query.projectIds]);
  if (query.categories.length > 0) rows = rows.where("category", "in", [...query.categories]);
  if (query.outcomes.length > 0) rows = rows.where("outcome", "in", [...query.outcomes]);

  const groups = new Map<string, OutcomeStats["groups"][number]>();
  for (const row of await rows.execute()) {
    const by: Record<string, string | number> = {};
    for (const field of query.groupBy) by[field] = field === "project" ? row.project_id : row[field];
    const key = JSON.stringify(by);
    let group = groups.get(key);
    if (!group) {
      group = { by, totals: { "sum(quantity)": 0 }, series: { "sum(quantity)": new Array<number>(buckets).fill(0) } };
      groups.set(key, group);
    }
    const quantity = Number(row.quantity);
    const bucket = Math.floor((row.hour.getTime() - first) / query.intervalMs);
    group.totals["sum(quantity)"] += quantity;
    group.series["sum(quantity)"][bucket] = (group.series["sum(quantity)"][bucket] ?? 0) + quantity;
  }
  return {
    start: new Date(first).toISOString(),
    end: new Date(end).toISOString(),
    intervals: Array.from({ length: buckets }, (_, i) => new Date(first + i * query.intervalMs).toISOString()),
    groups: [...groups.values()],
  };
}
