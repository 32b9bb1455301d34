import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";

/**
 * What produced a hash, as read from its latest event (docs/grouping.md, "Which rule grouped an
 * issue"): Sentry's grouping-info variant, reduced. `custom_fingerprint` with `matchedRule` for a
 * fingerprint rule, without for an SDK's fingerprint; `default` for the built-in grouping.
 */
export interface HashGroupingInfo {
  type: "custom_fingerprint" | "default";
  description: "custom server fingerprint" | "custom client fingerprint" | "default grouping";
  /** The fingerprint rule's text (canonical, as `_fingerprint_info.matched_rule.text`), or null. */
  matchedRule: string | null;
  /** The fingerprint's values (`{{ default }}` as such), or null for the default grouping. */
  values: string[] | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function describe(info: unknown, fingerprint: unknown): HashGroupingInfo {
  const values = Array.isArray(fingerprint) && fingerprint.length > 0 ? fingerprint.map(String) : null;
  const rule = isObject(info) && isObject(info.matched_rule) ? info.matched_rule : null;
  if (rule && typeof rule.text === "string")
    return { type: "custom_fingerprint", description: "custom server fingerprint", matchedRule: rule.text, values };
  if (values)
    return { type: "custom_fingerprint", description: "custom client fingerprint", matchedRule: null, values };
  return { type: "default", description: "default grouping", matchedRule: null, values: null };
}

/** The grouping info of each event (by row id), from its stored payload. */
export async function groupingInfoByEvent(
  db: Kysely<Database>,
  eventRowIds: readonly number[],
): Promise<Map<number, HashGroupingInfo>> {
  if (eventRowIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("events")
    .select([
      "id",
      sql<unknown>`payload -> '_fingerprint_info'`.as("info"),
      sql<unknown>`payload -> 'fingerprint'`.as("fingerprint"),
    ])
    .where("id", "in", eventRowIds)
    .execute();
  return new Map(rows.map((row) => [Number(row.id), describe(row.info, row.fingerprint)]));
}
