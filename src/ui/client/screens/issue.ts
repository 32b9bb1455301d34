import { useState } from "preact/hooks";
import { enc, get } from "../api.js";
import { count } from "../format.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { BarChart } from "../parts/charts.js";
import { Failure, Level, Loading, Section, Status, Time } from "../parts/common.js";
import { EventView } from "../parts/event.js";
import { href, navigate } from "../router.js";
import type { Issue, SentryEvent } from "../types.js";
import { ActivityView } from "./activity.js";
import { UserReports } from "./feedback.js";
import { IssueActions } from "./issue-actions.js";
import { ReleaseHealthLine } from "./releases.js";
import { TagDistribution } from "./issue-tags.js";

interface Hash {
  id: string;
  latestEvent: { eventID: string; dateCreated: string } | null;
}

/** The newest event of an issue: the latest event of its hashes, newest first. */
async function latestEventId(org: string, id: string): Promise<string | null> {
  const hashes = await get<Hash[]>(`/organizations/${enc(org)}/issues/${enc(id)}/hashes/`);
  const events = hashes.flatMap((hash) => (hash.latestEvent ? [hash.latestEvent] : []));
  events.sort((a, b) => Date.parse(b.dateCreated) - Date.parse(a.dateCreated));
  return events[0]?.eventID ?? null;
}

export function IssueDetail({ org, id, params }: { org: string; id: string; params: URLSearchParams }) {
  const issue = useAsync(() => get<Issue>(`/organizations/${enc(org)}/issues/${enc(id)}/`), [org, id], true);
  const wanted = params.get("event");
  const project = issue.data?.project.slug;
  const event = useAsync(async () => {
    if (!project) return null;
    const eventId = wanted ?? (await latestEventId(org, id));
    return eventId ? get<SentryEvent>(`/projects/${enc(org)}/${enc(project)}/events/${enc(eventId)}/`) : null;
  }, [org, id, project, wanted]);
  const [period, setPeriod] = useState<"24h" | "30d">("24h");
  const data = issue.data;
  if (!data) return html`<${Failure} error=${issue.error} /><${Loading} when=${issue.loading} />`;
  const e = event.data;
  const toEvent = (eventId: string) => navigate(`/${enc(org)}/issues/${enc(id)}?event=${enc(eventId)}`);
  return html`
    <p><a href=${href(`/${enc(org)}`)}>← Issues</a></p>
    <header class="issue-head">
      <h1>${data.title}</h1>
      <p class="culprit">${data.culprit}</p>
      <p class="meta">
        <span>${data.shortId}</span> <${Level} level=${data.level} /> <${Status} status=${data.status} substatus=${data.substatus} />
        <span>project ${data.project.slug}</span>
        <span>first seen <${Time} iso=${data.firstSeen} /></span> <span>last seen <${Time} iso=${data.lastSeen} /></span>
        ${e?.release ? html`<span>release ${e.release.version}<${ReleaseHealthLine} org=${org} version=${e.release.version} project=${data.project.slug} /></span>` : null}
        <span>${count(data.count)} events</span> <span>${count(data.userCount)} users</span>
        ${data.assignedTo ? html`<span>assigned to ${data.assignedTo}</span>` : null}
      </p>
    </header>
    <${Failure} error=${issue.error} />
    <${IssueActions} org=${org} issue=${data} onChange=${issue.reload} />
    <${Section} title="Events">
      <div class="row" role="group" aria-label="Chart period">
        <button aria-pressed=${period === "24h"} onClick=${() => setPeriod("24h")}>24 hours</button>
        <button aria-pressed=${period === "30d"} onClick=${() => setPeriod("30d")}>30 days</button>
      </div>
      <${BarChart} points=${data.stats?.[period]} label=${`Events in the last ${period === "24h" ? "24 hours" : "30 days"}`} daily=${period === "30d"} />
    </${Section}>
    <${TagDistribution} org=${org} id=${id} lastSeen=${data.lastSeen} />
    <section class="card" aria-labelledby="event-title">
      <h2 id="event-title">Event ${e ? html`<code>${e.eventID.slice(0, 8)}</code> <${Time} iso=${e.dateCreated} />` : null}</h2>
      ${e ? html`<p class="muted">${e.environment ? `environment ${e.environment}` : ""}</p>` : null}
      <div class="row">
        <button disabled=${!e?.previousEventID} onClick=${() => e?.previousEventID && toEvent(e.previousEventID)}>Older event</button>
        <button disabled=${!e?.nextEventID} onClick=${() => e?.nextEventID && toEvent(e.nextEventID)}>Newer event</button>
      </div>
      <${Failure} error=${event.error} /><${Loading} when=${event.loading && !e} />
    </section>
    ${e ? html`<${EventView} event=${e} />` : null}
    ${data.userReportCount ? html`<${UserReports} org=${org} issueId=${data.id} project=${data.project.slug} />` : null}
    <${ActivityView} org=${org} issue=${data} onChange=${issue.reload} />
  `;
}
