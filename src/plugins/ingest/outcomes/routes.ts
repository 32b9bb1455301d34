import { z } from "zod";
import { Clock, Db } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { badRequest } from "../../../http/errors.js";
import { repeatable } from "../../../http/query-params.js";
import { durationSchema, resolveTimeRange, timeRangeShape } from "../../../http/time-range.js";
import { OUTCOME_GROUPS, outcomeStats } from "./stats.js";

const HOUR_MS = 3_600_000;
/** Buckets in one answer: 90 days hour by hour fit; a year hour by hour does not. */
const MAX_BUCKETS = 2_200;

const statsQuery = z.object({
  field: z.literal("sum(quantity)", { error: 'must be "sum(quantity)"' }),
  groupBy: repeatable.pipe(z.array(z.enum(OUTCOME_GROUPS, { error: `must be one of ${OUTCOME_GROUPS.join(", ")}` }))),
  category: repeatable,
  outcome: repeatable,
  project: repeatable.pipe(
    z.array(
      z
        .string()
        .regex(/^(-1|\d{1,18})$/, "must be a project id")
        .transform(Number),
    ),
  ),
  interval: durationSchema
    .refine((ms) => ms === "" || ms % HOUR_MS === 0, "must be whole hours (outcomes are counted per hour)")
    .transform((ms) => ms || HOUR_MS)
    .default(HOUR_MS),
  ...timeRangeShape,
});

/**
 * Sentry's usage statistics (`stats_v2`): how many events each project's SDKs sent per hour and
 * what became of them — `accepted`, `rate_limited` (`key_quota`, `queue_full`), `invalid`, and
 * `client_discard` (what SDKs report dropping themselves).
 */
export const getOutcomeStats = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/stats_v2/",
  operationId: "organizations.stats",
  summary: "Retrieve event counts by outcome (accepted, rate limited, invalid, discarded by the SDK)",
  scopes: ["org:read"],
  query: statsQuery,
  handler: async ({ organization, query, container }) => {
    const range = resolveTimeRange(query, container.resolve(Clock).now(), 14 * 86_400_000);
    if (typeof range === "string") throw badRequest(`Invalid request: ${range}`);
    if ((range.end.getTime() - range.start.getTime()) / query.interval > MAX_BUCKETS) {
      throw badRequest(
        `Invalid request: interval: too many intervals in the period (at most ${MAX_BUCKETS}); choose a longer interval`,
      );
    }
    const stats = await outcomeStats(container.resolve(Db), {
      organizationId: organization.id,
      range,
      intervalMs: query.interval,
      groupBy: [...new Set(query.groupBy)],
      projectIds: query.project.filter((id) => id !== -1),
      categories: query.category,
      outcomes: query.outcome,
    });
    return { body: stats };
  },
});
