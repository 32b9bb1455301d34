import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import { ApiError } from "../../../http/errors.js";
import { parseSearchQuery } from "../../issues/index.js";

/** One term of a metric alert query: a field of the event, any of the values, maybe negated. */
export type EventTerm =
  | { field: "level" | "environment" | "release"; values: string[]; negated: boolean }
  | { field: "tag"; key: string; values: string[]; negated: boolean };

const SUPPORTED = "level, environment, release and tags";

/** Why a metric alert query is refused (the message goes to `errors.query`). */
export class EventQueryError extends Error {}

/**
 * Parses a metric alert query: the issue search syntax, restricted to what describes a single
 * event (level, environment, release, tags; `!` negates). Anything else throws an EventQueryError.
 */
export function parseEventQuery(query: string): EventTerm[] {
  let parsed;
  try {
    parsed = parseSearchQuery(query);
  } catch (error) {
    if (error instanceof ApiError) throw new EventQueryError(error.detail.replace(/^Error parsing search query: /, ""));
    throw error;
  }
  return parsed.terms.map((term): EventTerm => {
    if ("values" in term && term.values.some((value) => typeof value === "string" && value.includes("*")))
      throw new EventQueryError(`wildcards ("*") are not supported in a metric alert query`);
    if (term.type === "text")
      throw new EventQueryError(
        `free text ("${term.text}") is not supported in a metric alert query; use ${SUPPORTED}`,
      );
    if (term.type === "level" || term.type === "environment" || term.type === "release")
      return { field: term.type, values: term.values, negated: term.negated };
    if (term.type === "tag") return { field: "tag", key: term.key, values: term.values, negated: term.negated };
    throw new EventQueryError(`"${term.type}:" is not supported in a metric alert query; use ${SUPPORTED}`);
  });
}

type EventsEb = ExpressionBuilder<Database & { e: Database["events"] }, "e">;
const COLUMNS = { level: "e.level", environment: "e.environment", release: "e.release" } as const;

/** The terms as a condition on `events as e`, all ANDed (tags are `[key, value]` pairs in a JSON array). */
export function eventQueryCondition(eb: EventsEb, terms: readonly EventTerm[]): Expression<SqlBool> {
  return eb.and(
    terms.map((term) => {
      const condition =
        term.field === "tag"
          ? eb.or(
              term.values.map(
                (value) => sql<SqlBool>`${eb.ref("e.tags")} @> ${JSON.stringify([[term.key, value]])}::jsonb`,
              ),
            )
          : eb(COLUMNS[term.field], "in", term.values);
      return term.negated ? eb.not(eb.fn.coalesce(condition, sql<SqlBool>`false`)) : condition;
    }),
  );
}
