import { z } from "zod";
import { repeatable } from "../../../http/query-params.js";
import { issueFilterShape } from "./params.js";
import { parseSearchQuery } from "../search/parser.js";
import { bulkIdsSchema } from "../issue/routes.js";

/**
 * The query of a bulk PUT / DELETE on the issue list (`?id=…`, else the list's filters).
 *
 * The list is lenient where leniency only shows more: an empty `environment=` is dropped,
 * `query=` means "no filter", and parameters it does not know are ignored. In a bulk change each
 * of those would widen a mutation to issues the caller never named (an `environment=` once
 * resolved every issue of the organization), so here they are a 400 naming the parameter.
 */

/** List parameters that only shape a page (order, size, stats): accepted, and they select nothing. */
const PRESENTATION_PARAMETERS = [
  "sort",
  "limit",
  "per_page",
  "cursor",
  "statsPeriod",
  "groupStatsPeriod",
  "shortIdLookup",
  "expand",
  "collapse",
];

const BLANK = "must not be empty: a blank filter would select more issues, not fewer";

const isBlank = (value: string) => value.trim() === "";

/** A query that parses to no term at all (`""`, spaces) selects everything, like an empty one. */
function selectsEverything(query: string): boolean {
  if (isBlank(query)) return true;
  try {
    return parseSearchQuery(query).terms.length === 0;
  } catch {
    return false; // Unparseable: refused with the parser's own message when the filters are built.
  }
}

const filters = {
  id: bulkIdsSchema,
  query: z
    .string()
    .refine(
      (query) => !selectsEverything(query),
      "must not be empty in a bulk change: leave it out (is:unresolved) or give a search",
    )
    .optional(),
  status: issueFilterShape.status,
  assignee: z
    .string()
    .min(1, BLANK)
    .refine((value) => !isBlank(value), BLANK)
    .optional(),
  project: issueFilterShape.project,
  environment: repeatable.refine((values) => !values.some(isBlank), BLANK),
};

const KNOWN = new Set([...Object.keys(filters), ...PRESENTATION_PARAMETERS]);

export const bulkQuery = z
  .looseObject(filters)
  .superRefine((params, ctx) => {
    for (const name of Object.keys(params)) {
      if (!KNOWN.has(name))
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "unknown parameter: a bulk change does not guess what it was meant to select",
        });
    }
  })
  // Only the filters go on: presentation parameters have been accepted, and that is all they get.
  .transform(({ id, query, status, assignee, project, environment }) => ({
    id,
    query,
    status,
    assignee,
    project,
    environment,
  }));

export type BulkQuery = z.output<typeof bulkQuery>;
