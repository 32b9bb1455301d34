import { z } from "zod";
import { Clock, Db } from "../../container/tokens.js";
import { defineEndpoint } from "../../http/endpoint.js";
import { badRequest } from "../../http/errors.js";
import { repeatable } from "../../http/query-params.js";
import { durationSchema, timeRangeShape } from "../../http/time-range.js";
import { SessionBufferToken } from "./tokens.js";
import { SESSION_GROUPS, type SessionCounts, sessionCounts } from "./query.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Sentry's cap on one answer: intervals times groups. */
const MAX_POINTS = 10_000;
/** The longest window: what retention keeps at most by default, and Sentry's own limit. */
const MAX_WINDOW_MS = 90 * DAY_MS;

/** Sentry's session fields and how each is computed from a group's counts (null: not tracked, or no data). */
const FIELDS: Record<string, (counts: SessionCounts) => number | null> = {
  "sum(session)": (c) => c.sessions,
  "count_unique(user)": (c) => c.users,
  "crash_rate(session)": (c) => (c.sessions > 0 ? c.crashed / c.sessions : null),
  "crash_free_rate(session)": (c) => (c.sessions > 0 ? 1 - c.crashed / c.sessions : null),
  "crash_rate(user)": (c) => (c.users > 0 ? c.crashedUsers / c.users : null),
  "crash_free_rate(user)": (c) => (c.users > 0 ? 1 - c.crashedUsers / c.users : null),
  // Session durations are not kept (Sentry stopped recording them in 2023): always null.
  ...Object.fromEntries(
    ["avg", "p50", "p75", "p90", "p95", "p99", "max"].map((f) => [`${f}(session.duration)`, () => null]),
  ),
};

const flag = z.enum(["0", "1"], { error: 'must be "0" or "1"' }).optional();

const sessionsQuery = z.object({
  field: repeatable.pipe(
    z
      .array(
        z.string().refine((field) => field in FIELDS, { error: `must be one of ${Object.keys(FIELDS).join(", ")}` }),
      )
      .min(1, "at least one field is required (sum(session), crash_free_rate(session)…)"),
  ),
  groupBy: repeatable.pipe(
    z.array(
      z.enum(SESSION_GROUPS, {
        error: `must be one of ${SESSION_GROUPS.join(", ")} (session.status is not supported)`,
      }),
    ),
  ),
  project: repeatable.pipe(
    z.array(
      z
        .string()
        .regex(/^(-1|\d{1,9})$/, "must be a project id")
        .transform(Number),
    ),
  ),
  environment: repeatable,
  interval: durationSchema
    .refine(
      (ms) => ms === "" || (ms >= HOUR_MS && ms <= DAY_MS && DAY_MS % ms === 0),
      "must be at least 1h and at most 1d, and divide a day (1h, 2h, 3h, 4h, 6h, 8h, 12h, 1d)",
    )
    .transform((ms) => ms || HOUR_MS)
    .default(HOUR_MS),
  includeTotals: flag,
  includeSeries: flag,
  query: z.string().max(0, "search queries are not supported").optional(),
  ...timeRangeShape,
});
type SessionsQuery = z.output<typeof sessionsQuery>;

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/**
 * Sentry's window rounding: the range is a whole number of intervals ending at the interval
 * that holds its end; a window that ends in the future ends at the next minute instead.
 */
function windowOf(query: SessionsQuery, now: Date): { start: number; end: number; shownEnd: number } {
  if ((query.start === undefined) !== (query.end === undefined))
    throw badRequest("Invalid request: start and end must be given together");
  const requestedEnd = query.end ? query.end.getTime() + 1000 : now.getTime();
  const requestedStart = query.start ? query.start.getTime() : requestedEnd - (query.statsPeriod || DAY_MS);
  if (requestedStart >= requestedEnd) throw badRequest("Invalid request: start must be before end");
  const interval = query.interval;
  const span = Math.ceil((requestedEnd - requestedStart) / interval) * interval;
  if (span > MAX_WINDOW_MS) throw badRequest("Invalid request: statsPeriod: at most 90 days can be queried");
  const end = Math.ceil(requestedEnd / interval) * interval;
  const shownEnd = end > now.getTime() ? (Math.floor(now.getTime() / 60_000) + 1) * 60_000 : end;
  return { start: end - span, end, shownEnd };
}

/**
 * `GET /organizations/{org}/sessions/`: Sentry's release-health statistics (docs/release-health.md):
 * totals and series per group of project, release and environment.
 */
export const getSessionStats = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/sessions/",
  operationId: "releaseHealth.sessions",
  summary: "Retrieve release health session statistics (crash-free rates, sessions, users) per release and environment",
  scopes: ["org:read", "project:read", "project:releases"],
  query: sessionsQuery,
  handler: async ({ organization, query, container }) => {
    const db = container.resolve(Db);
    const window = windowOf(query, container.resolve(Clock).now());
    const intervals = (window.end - window.start) / query.interval;
    const groupBy = [...new Set(query.groupBy)];
    const wanted = query.project.filter((id) => id !== -1);
    const projects = await db
      .selectFrom("projects")
      .select("id")
      .where("organization_id", "=", organization.id)
      .$if(wanted.length > 0, (q) => q.where("id", "in", wanted))
      .execute();
    const missing = wanted.filter((id) => !projects.some((project) => project.id === id));
    if (missing.length > 0) throw badRequest(`Invalid request: project: unknown project ${missing.join(", ")}`);
    // This instance's buffered sessions first: what an SDK sent here shows at once.
    // (A failed write is the timer's to retry: the read goes on with what is stored.)
    await container
      .resolve(SessionBufferToken)
      .flush()
      .catch(() => undefined);
    const groups = await sessionCounts(db, {
      projectIds: projects.map((project) => project.id),
      environments: query.environment,
      releases: [],
      start: new Date(window.start),
      end: new Date(window.end),
      intervalMs: query.interval,
      groupBy,
    });
    if (groups.length * intervals > MAX_POINTS)
      throw badRequest(
        "Your interval and date range would create too many results. Use a larger interval, or a smaller date range.",
      );
    const fields = [...new Set(query.field)];
    const pick = (counts: SessionCounts) =>
      Object.fromEntries(
        fields.map((field) => [field, (FIELDS[field] as (c: SessionCounts) => number | null)(counts)]),
      );
    // Without groupBy there is one group, even without sessions (as Sentry answers).
    const shown =
      groups.length === 0 && groupBy.length === 0
        ? [{ by: {}, totals: emptyCounts(), series: Array.from({ length: intervals }, emptyCounts) }]
        : groups.sort((a, b) => b.totals.sessions - a.totals.sessions || compareBy(a.by, b.by));
    return {
      body: {
        start: iso(window.start),
        end: iso(window.shownEnd),
        query: "",
        intervals: Array.from({ length: intervals }, (_, i) => iso(window.start + i * query.interval)),
        groups: shown.map((group) => ({
          by: group.by,
          ...(query.includeTotals !== "0" && { totals: pick(group.totals) }),
          ...(query.includeSeries !== "0" && {
            series: Object.fromEntries(
              fields.map((field) => [field, group.series.map((counts) => pick(counts)[field] ?? null)]),
            ),
          }),
        })),
      },
    };
  },
});

const emptyCounts = (): SessionCounts => ({
  sessions: 0,
  errored: 0,
  abnormal: 0,
  crashed: 0,
  users: 0,
  crashedUsers: 0,
});
const compareBy = (a: object, b: object) => JSON.stringify(a).localeCompare(JSON.stringify(b));

export const releaseHealthEndpoints = [getSessionStats];
