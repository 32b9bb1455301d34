import { enc, get } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Time } from "../parts/common.js";

interface MonitorEnvironment {
  name: string;
  status: string;
  lastCheckIn: string | null;
  nextCheckIn: string | null;
}

interface Monitor {
  id: string;
  slug: string;
  name: string;
  status: string;
  config: { schedule_type: string; schedule: string | [number, string]; timezone: string };
  environments: MonitorEnvironment[];
  project: { slug: string } | null;
}

interface CheckIn {
  id: string;
  status: string;
  environment: string;
  dateCreated: string;
}

/** How many recent check-ins the timeline shows. */
const TIMELINE = 20;

const scheduleOf = (config: Monitor["config"]) =>
  Array.isArray(config.schedule)
    ? `every ${config.schedule[0]} ${config.schedule[1]}${config.schedule[0] === 1 ? "" : "s"}`
    : `${config.schedule} (${config.timezone})`;

/** The recent check-ins, oldest left, one mark each, coloured and labelled by status. */
function Timeline({ org, slug }: { org: string; slug: string }) {
  const checkIns = useAsync(
    () => get<CheckIn[]>(`/organizations/${enc(org)}/monitors/${enc(slug)}/checkins/?per_page=${TIMELINE}`),
    [org, slug],
  );
  if (checkIns.error) return html`<${Failure} error=${checkIns.error} />`;
  const list = [...(checkIns.data ?? [])].reverse();
  if (!list.length) return html`<span class="muted">no check-ins</span>`;
  return html`<ol class="timeline" aria-label=${`Recent check-ins of ${slug}, oldest first`}>
    ${list.map(
      (c) =>
        html`<li class=${`tick tick-${c.status}`} title=${`${c.status} · ${c.environment} · ${new Date(c.dateCreated).toLocaleString()}`}>
          <span class="sr-only">${c.status} at ${new Date(c.dateCreated).toLocaleString()}</span>
        </li>`,
    )}
  </ol>`;
}

function MonitorRow({ org, monitor }: { org: string; monitor: Monitor }) {
  const environments = monitor.environments;
  const last =
    environments
      .map((e) => e.lastCheckIn)
      .filter(Boolean)
      .sort()
      .at(-1) ?? null;
  const status =
    monitor.status === "disabled"
      ? "disabled"
      : environments.some((e) => e.status === "error")
        ? "error"
        : environments.length
          ? "ok"
          : "waiting";
  return html`<tr>
    <th scope="row">${monitor.name} <span class="muted">${monitor.project?.slug ?? ""}</span></th>
    <td class="mono">${scheduleOf(monitor.config)}</td>
    <td>${last ? html`<${Time} iso=${last} />` : html`<span class="muted">never</span>`}</td>
    <td><span class=${`badge monitor-${status}`}>${status}</span></td>
    <td><${Timeline} org=${org} slug=${monitor.slug} /></td>
  </tr>`;
}

/** Cron monitors (docs/crons.md): schedule, last check-in, status and a timeline of the recent check-ins. */
export function Crons({ org }: { org: string }) {
  const monitors = useAsync(() => get<Monitor[]>(`/organizations/${enc(org)}/monitors/`), [org]);
  const list = monitors.data;
  return html`<h1>Crons</h1>
    <${Failure} error=${monitors.error} /><${Loading} when=${monitors.loading && !list} />
    ${list && !list.length ? html`<p class="muted">No monitors yet: an SDK's check-in with a schedule creates one.</p>` : null}
    ${
      list?.length
        ? html`<table class="monitors">
          <thead><tr><th scope="col">Monitor</th><th scope="col">Schedule</th><th scope="col">Last check-in</th><th scope="col">Status</th><th scope="col">Recent check-ins</th></tr></thead>
          <tbody>${list.map((monitor) => html`<${MonitorRow} key=${monitor.id} org=${org} monitor=${monitor} />`)}</tbody>
        </table>`
        : null
    }`;
}
