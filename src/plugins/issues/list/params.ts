import { z } from "zod";
import { cursorSchema, pageSizeSchema } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import { ISSUE_SORTS } from "./sorts.js";


const statsPeriod = z.enum(["24h", "14d", ""], { error: 'must be "24h", "14d" or empty' }).optional();

/** What selects issues: shared by the list and the bulk PUT / DELETE without `id`. */
export const issueFilterShape = {
  query: z.string().optional(),
  status: z.enum(["resolved", "unresolved", "ignored"], { error: 'must be "resolved", "unresolved" or "ignored"' }).optional(),
  assignee: z.string().min(1).optional(),
  /** `-1` is Sentry's "all projects". */
  project: repeatable.pipe(z.array(z.string().regex(/^(-1|\d{1,18})$/, "must be a project id").transform(Number))),
  environment: repeatable.transform((values) => values.filter((value) => value !== "")),
};

export const listIssuesQuery = z
  .object({
    ...issueFilterShape,
    statsPeriod,
    groupStatsPeriod: statsPeriod,
    sort: z.enum(ISSUE_SORTS, { error: `must be one of ${ISSUE_SORTS.join(", ")}` }).default("date"),
    limit: pageSizeSchema,
    cursor: cursorSchema,
    shortIdLookup: z.enum(["0", "1", "true", "false"]).optional(),
  })
  .transform(({ statsPeriod, groupStatsPeriod, shortIdLookup, ...rest }) => ({
    ...rest,
    // `groupStatsPeriod` is what Sentry's own clients send; `statsPeriod` wins when both are given.
    statsPeriod: toStatsPeriod(statsPeriod ?? groupStatsPeriod ?? "24h"),
    shortIdLookup: shortIdLookup === "1" || shortIdLookup === "true",
  }));

export type ListIssuesQuery = z.output<typeof listIssuesQuery>;
export type IssueFilterParams = Pick<ListIssuesQuery, "query" | "status" | "assignee" | "project" | "environment">;

function toStatsPeriod(value: "24h" | "14d" | ""): "24h" | "14d" | null {
  return value === "" ? null : value;
}
