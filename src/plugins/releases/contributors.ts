import type { InjectionToken } from "tsyringe";

/** One project of one release, as a release response lists it. */
export interface ReleaseProjectRef {
  version: string;
  projectId: number;
}

/** What the request asked for beyond the release itself (Sentry's query parameters on the release endpoints). */
export interface ReleaseDetailRequest {
  /** `health=1`: each project's `healthData`. */
  health: boolean;
  /** The window of the health totals, ms (Sentry's `summaryStatsPeriod`, 14 days by default). */
  summaryPeriodMs: number;
  now: Date;
}

/**
 * Adds fields to the `projects[]` entries of release responses: the release-health plugin's
 * `hasHealthData` and `healthData` (docs/release-health.md). The releases plugin owns the
 * endpoints and the release's shape; a contributor owns the numbers. Register one per plugin
 * (`registerFactory`); the fields of later ones win.
 */
export interface ReleaseDetailContributor {
  projectDetails(
    organizationId: number,
    projects: readonly ReleaseProjectRef[],
    request: ReleaseDetailRequest,
  ): Promise<Map<string, Record<string, unknown>>>;
}

/** The key of a project's fields in a contributor's answer. */
export const releaseProjectKey = (ref: ReleaseProjectRef): string => `${ref.projectId}\u0000${ref.version}`;

export const ReleaseDetailContributorToken: InjectionToken<ReleaseDetailContributor> = Symbol(
  "faultline.ReleaseDetailContributor",
);
