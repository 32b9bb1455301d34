import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import {
  type ReleaseDetailContributor,
  type ReleaseDetailRequest,
  type ReleaseProjectRef,
  releaseProjectKey,
} from "../releases/index.js";
import type { SessionBuffer } from "./buffer.js";
import { type SessionCounts, sessionCounts } from "./query.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** `part` of `whole` in percent, null without a whole (Sentry's convention for rates without data). */
const percent = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : null);

/** Sentry's `healthData` of one project of one release. */
export function healthData(summary: SessionCounts, release24h: SessionCounts, project24h: SessionCounts) {
  return {
    crashFreeSessions: whole(percent(summary.sessions - summary.crashed, summary.sessions)),
    crashFreeUsers: whole(percent(summary.users - summary.crashedUsers, summary.users)),
    sessionsCrashed: summary.crashed,
    sessionsErrored: summary.errored,
    totalSessions: summary.sessions,
    totalUsers: summary.users,
    totalSessions24h: release24h.sessions,
    totalUsers24h: release24h.users,
    totalProjectSessions24h: project24h.sessions,
    totalProjectUsers24h: project24h.users,
    // Sentry's adoption is by users; sessionsAdoption by sessions (both of the project's last 24 hours).
    adoption: whole(percent(release24h.users, project24h.users)),
    sessionsAdoption: whole(percent(release24h.sessions, project24h.sessions)),
    // Session durations are not kept (Sentry stopped recording them too).
    durationP50: null,
    durationP90: null,
    hasHealthData: summary.sessions + release24h.sessions > 0,
    stats: {},
  };
}

/** Rates rounded as Sentry shows them (two decimals would still be exact in a float). */
const whole = (value: number | null) => (value === null ? null : Math.round(value * 10_000) / 10_000);

/** The window of whole hours ending with the hour that holds `now`. */
function hoursBefore(now: Date, spanMs: number) {
  const end = Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS;
  return { start: new Date(end - spanMs), end: new Date(end), intervalMs: spanMs };
}

/** The release endpoints' `health=1`: each project's `healthData` and `hasHealthData`. */
export function releaseHealthContributor(db: () => Kysely<Database>, buffer: SessionBuffer): ReleaseDetailContributor {
  return {
    async projectDetails(
      _organizationId: number,
      projects: readonly ReleaseProjectRef[],
      request: ReleaseDetailRequest,
    ) {
      const details = new Map<string, Record<string, unknown>>();
      if (!request.health || projects.length === 0) return details;
      // This instance's buffered sessions first, as the sessions endpoint does.
      await buffer.flush().catch(() => undefined);
      const projectIds = [...new Set(projects.map((project) => project.projectId))];
      const releases = [...new Set(projects.map((project) => project.version))];
      const common = { projectIds, environments: [], groupBy: ["project", "release"] as const };
      const [summary, release24h, project24h] = await Promise.all([
        sessionCounts(db(), { ...common, releases, ...hoursBefore(request.now, request.summaryPeriodMs) }),
        sessionCounts(db(), { ...common, releases, ...hoursBefore(request.now, DAY_MS) }),
        sessionCounts(db(), { ...common, releases: [], groupBy: ["project"], ...hoursBefore(request.now, DAY_MS) }),
      ]);
      const byRelease = (groups: typeof summary) =>
        new Map(
          groups.map((group) => [
            releaseProjectKey({ version: String(group.by.release), projectId: Number(group.by.project) }),
            group.totals,
          ]),
        );
      const summaries = byRelease(summary);
      const recent = byRelease(release24h);
      const projectTotals = new Map(project24h.map((group) => [Number(group.by.project), group.totals]));
      const none: SessionCounts = { sessions: 0, errored: 0, abnormal: 0, crashed: 0, users: 0, crashedUsers: 0 };
      for (const project of projects) {
        const key = releaseProjectKey(project);
        const data = healthData(
          summaries.get(key) ?? none,
          recent.get(key) ?? none,
          projectTotals.get(project.projectId) ?? none,
        );
        details.set(key, { hasHealthData: data.hasHealthData, healthData: data });
      }
      return details;
    },
  };
}
