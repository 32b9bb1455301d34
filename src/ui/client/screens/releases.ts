import { enc, get } from "../api.js";
import { count } from "../format.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Time } from "../parts/common.js";

/** The `healthData` the release endpoints add with `health=1` (docs/release-health.md). */
export interface HealthData {
  crashFreeSessions: number | null;
  crashFreeUsers: number | null;
  totalSessions: number;
  totalUsers: number;
  sessionsCrashed: number;
  sessionsErrored: number;
  adoption: number | null;
  hasHealthData: boolean;
}

interface ReleaseProject {
  id: number;
  slug: string;
  healthData?: HealthData;
}

export interface Release {
  version: string;
  dateCreated: string;
  lastEvent: string | null;
  projects: ReleaseProject[];
}

/** A rate in percent, as Sentry shows it (two decimals at most), or a dash without sessions. */
export const rate = (value: number | null | undefined) =>
  value === null || value === undefined ? "—" : `${Math.round(value * 100) / 100} %`;

/** Crash-free sessions and users of a release's project (the last 14 days), one line. */
export function HealthSummary({ health }: { health: HealthData | undefined }) {
  if (!health?.hasHealthData) return html`<span class="muted">no sessions</span>`;
  return html`<span>crash-free sessions ${rate(health.crashFreeSessions)} · users ${rate(health.crashFreeUsers)}</span>`;
}

/** The issue page's line on its event's release: that project's crash-free rates there. */
export function ReleaseHealthLine({ org, version, project }: { org: string; version: string; project: string }) {
  const release = useAsync(
    () => get<Release>(`/organizations/${enc(org)}/releases/${enc(version)}/?health=1`).catch(() => null),
    [org, version],
  );
  const health = release.data?.projects.find((p) => p.slug === project)?.healthData;
  return health?.hasHealthData ? html` <span class="muted">(<${HealthSummary} health=${health} />)</span>` : null;
}

/** The organization's releases, each project's crash-free rates over the last 14 days. */
export function Releases({ org }: { org: string }) {
  const releases = useAsync(() => get<Release[]>(`/organizations/${enc(org)}/releases/?health=1`), [org], true);
  const rows = (releases.data ?? []).flatMap((release): Array<{ release: Release; project: ReleaseProject | null }> =>
    release.projects.length ? release.projects.map((project) => ({ release, project })) : [{ release, project: null }],
  );
  return html`<h1>Releases</h1>
    <p class="muted">Crash-free rates and sessions over the last 14 days (release health).</p>
    <${Failure} error=${releases.error} /><${Loading} when=${releases.loading && !releases.data} />
    ${releases.data && !rows.length ? html`<p class="muted">No releases yet.</p>` : null}
    ${
      rows.length
        ? html`<div class="scroll" tabindex="0" role="region" aria-label="Releases and their health"><table class="releases">
      <thead><tr><th scope="col">Release</th><th scope="col">Project</th><th scope="col">Crash-free sessions</th><th scope="col">Crash-free users</th>
        <th scope="col">Sessions</th><th scope="col">Users</th><th scope="col">Adoption (24 h)</th><th scope="col">Created</th></tr></thead>
      <tbody>${rows.map(({ release, project }) => {
        const health = project?.healthData;
        const has = health?.hasHealthData;
        return html`<tr>
          <td><code>${release.version}</code></td><td>${project?.slug ?? html`<span class="muted">—</span>`}</td>
          <td>${has ? rate(health?.crashFreeSessions) : html`<span class="muted">no sessions</span>`}</td>
          <td>${has ? rate(health?.crashFreeUsers) : "—"}</td>
          <td>${has ? count(health?.totalSessions ?? 0) : "—"}</td><td>${has ? count(health?.totalUsers ?? 0) : "—"}</td>
          <td>${has ? rate(health?.adoption) : "—"}</td><td><${Time} iso=${release.dateCreated} /></td>
        </tr>`;
      })}</tbody>
    </table></div>`
        : null
    }`;
}
