import { enc, get } from "../api.js";
import { count } from "../format.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Level, Loading, Status, Time } from "../parts/common.js";
import { SharedEventView } from "../parts/event.js";
import type { SharedIssue } from "../types.js";

/**
 * `/share/issue/{shareId}/`: a publicly shared issue, read-only and without signing in (the API
 * answers it without a credential; docs/dashboard.md, "Shared issues"). Only what that answer
 * holds is shown: no user, tags, contexts or breadcrumbs reach this page.
 */
export function SharedIssueView({ shareId }: { shareId: string }) {
  const issue = useAsync(() => get<SharedIssue>(`/shared/issues/${enc(shareId)}/`), [shareId]);
  const data = issue.data;
  if (!data) {
    const gone = issue.error
      ? html`<p class="error" role="alert">This shared issue does not exist, or is no longer shared.</p>`
      : null;
    return html`<main id="main" class="narrow" tabindex="-1"><${Loading} when=${issue.loading} />${gone}</main>`;
  }
  const event = data.latestEvent;
  return html`<main id="main" tabindex="-1" class="shared-issue">
    <header class="issue-head">
      <p class="muted">Shared issue · ${data.project.organization.name} / ${data.project.name}</p>
      <h1>${data.title}</h1>
      <p class="culprit">${data.culprit}</p>
      <p class="meta">
        <span>${data.shortId}</span> <${Level} level=${data.level} /> <${Status} status=${data.status} />
        <span>first seen <${Time} iso=${data.firstSeen} /></span> <span>last seen <${Time} iso=${data.lastSeen} /></span>
        <span>${count(data.count)} events</span>
      </p>
    </header>
    <${Failure} error=${issue.error} />
    ${event ? html`<${SharedEventView} event=${event} />` : html`<p class="muted">No event is stored for this issue any more.</p>`}
  </main>`;
}
