import { releaseProjectKey } from "./contributors.js";
import type { DeployRecord, ReleaseRecord } from "./repository.js";

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const earliest = (dates: Array<Date | null>) =>
  dates.reduce<Date | null>((min, date) => (date && (!min || date < min) ? date : min), null);
const latest = (dates: Array<Date | null>) =>
  dates.reduce<Date | null>((max, date) => (date && (!max || date > max) ? date : max), null);

/** `pkg@1.2.3+build` → package `pkg`, version `1.2.3+build`, short `1.2.3` (as Sentry shows it). */
function versionInfo(version: string) {
  const at = version.lastIndexOf("@");
  const pkg = at > 0 ? version.slice(0, at) : null;
  const raw = at > 0 ? version.slice(at + 1) : version;
  const plus = raw.indexOf("+");
  return {
    shortVersion: /^[0-9a-f]{40}$/i.test(raw) ? raw.slice(0, 12) : raw,
    info: { package: pkg, version: { raw }, description: raw, buildHash: plus >= 0 ? raw.slice(plus + 1) : null },
  };
}

export function serializeDeploy(deploy: DeployRecord) {
  return {
    id: String(deploy.id),
    environment: deploy.environment,
    name: deploy.name,
    url: deploy.url,
    dateStarted: iso(deploy.dateStarted),
    dateFinished: iso(deploy.dateFinished),
  };
}

/**
 * Sentry's release shape; counts Faultline does not track (commits' authors) are empty. `details`
 * are the contributors' fields per project (`healthData` with `health=1`), by {@link releaseProjectKey}.
 */
export function serializeRelease(release: ReleaseRecord, details?: ReadonlyMap<string, Record<string, unknown>>) {
  const { shortVersion, info } = versionInfo(release.version);
  const commits = release.commits;
  return {
    id: release.id,
    version: release.version,
    shortVersion,
    status: "open",
    ref: release.ref,
    url: release.url,
    dateReleased: iso(release.dateReleased),
    dateCreated: iso(release.dateCreated),
    data: {},
    newGroups: release.projects.reduce((sum, project) => sum + project.new_groups, 0),
    owner: null,
    commitCount: commits.length,
    lastCommit: commits.at(-1) ?? null,
    deployCount: release.deployCount,
    lastDeploy: release.lastDeploy ? serializeDeploy(release.lastDeploy) : null,
    firstEvent: iso(earliest(release.projects.map((project) => project.first_event))),
    lastEvent: iso(latest(release.projects.map((project) => project.last_event))),
    authors: [],
    versionInfo: info,
    projects: release.projects.map((project) => ({
      id: project.project_id,
      slug: project.slug,
      name: project.name,
      newGroups: project.new_groups,
      platform: project.platform,
      platforms: project.platform ? [project.platform] : [],
      hasHealthData: false,
      ...details?.get(releaseProjectKey({ version: release.version, projectId: project.project_id })),
    })),
  };
}
