import type { DependencyContainer } from "tsyringe";
import type { StoredEvent } from "../tables.js";
import { EventReleaseReaderToken, type ReleaseObjects } from "./release-port.js";

/**
 * The `release` objects of events (Sentry's event carries its release serialized in full):
 * read through the release port when a plugin provides it (docs/sentry-compatibility.md,
 * "Response shapes"), in one call for a page of events.
 */
export async function eventReleases(
  container: DependencyContainer,
  rows: ReadonlyArray<Pick<StoredEvent, "organization_id" | "release">>,
): Promise<ReleaseObjects> {
  const first = rows[0];
  // One organization's events (every caller reads within one): another's rows are not looked up.
  const own = rows.filter((row) => row.organization_id === first?.organization_id);
  const versions = [...new Set(own.flatMap((row) => (row.release === null ? [] : [row.release])))];
  if (!first || versions.length === 0 || !container.isRegistered(EventReleaseReaderToken, true)) return new Map();
  return container.resolve(EventReleaseReaderToken).releases(first.organization_id, versions);
}

/**
 * Sentry's release object for a version no release record is found for: the version itself and
 * Sentry's empty values (an event's release always exists in Sentry, created at ingest).
 */
export function bareRelease(version: string) {
  return {
    id: null,
    version,
    shortVersion: version,
    status: "open",
    ref: null,
    url: null,
    dateReleased: null,
    dateCreated: null,
    data: {},
    newGroups: 0,
    owner: null,
    commitCount: 0,
    lastCommit: null,
    deployCount: 0,
    lastDeploy: null,
    firstEvent: null,
    lastEvent: null,
    authors: [],
    projects: [],
  };
}
