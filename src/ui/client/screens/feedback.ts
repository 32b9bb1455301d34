import { useState } from "preact/hooks";
import { enc, get, qs, request } from "../api.js";
import { config } from "../config.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Section, Time } from "../parts/common.js";
import { href } from "../router.js";
import type { Project } from "../types.js";

/** A user feedback as `…/user-feedback/` and `…/user-reports/` list it (docs/user-feedback.md). */
export interface Feedback {
  id: string;
  eventID: string;
  name: string;
  email: string;
  comments: string;
  dateCreated: string;
  url: string | null;
  kind: "feedback" | "user_report";
  issue: { id: string; shortId: string; title: string; project: { slug: string } } | null;
  attachments: Array<{ id: string; name: string; size: number }>;
}

/** One report: the user's text is rendered as text (htm escapes it), never as markup. */
function FeedbackItem({ org, item, project }: { org: string; item: Feedback; project: string | null }) {
  const who = [item.name, item.email && `<${item.email}>`].filter(Boolean).join(" ") || "Anonymous";
  const screenshotProject = project ?? item.issue?.project.slug;
  return html`<li class="feedback">
    <p><strong>${who}</strong> <span class="muted"><${Time} iso=${item.dateCreated} /> · ${item.kind === "feedback" ? "feedback" : "user report"}</span></p>
    <blockquote class="feedback-text">${item.comments}</blockquote>
    <p class="muted">
      ${item.url ? html`on <span class="mono">${item.url}</span> · ` : null}
      ${item.issue ? html`issue <a href=${href(`/${enc(org)}/issues/${enc(item.issue.id)}`)}>${item.issue.shortId}</a> ${item.issue.title}` : html`no issue${item.eventID ? ` (event ${item.eventID.slice(0, 8)})` : ""}`}
      ${
        screenshotProject
          ? item.attachments.map(
              (a) =>
                html` · <a href=${`${config.api}/api/0/projects/${enc(org)}/${enc(screenshotProject)}/user-feedback/${enc(item.id)}/attachments/${enc(a.id)}/`} target="_blank" rel="noopener">${a.name}</a>`,
            )
          : null
      }
    </p>
  </li>`;
}

/** A page of feedback with Newer/Older buttons (the API's cursors). */
function FeedbackPage({ org, path, project }: { org: string; path: string; project: string | null }) {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const page = useAsync(() => request<Feedback[]>("GET", `${path}${qs({ cursor, per_page: "25" })}`), [path, cursor]);
  const items = page.data?.data;
  return html`<${Failure} error=${page.error} /><${Loading} when=${page.loading && !items} />
    ${items && !items.length ? html`<p class="muted">No feedback yet.</p>` : null}
    <ul class="activity">${(items ?? []).map((item) => html`<${FeedbackItem} key=${item.id} org=${org} item=${item} project=${project} />`)}</ul>
    ${
      page.data?.next || page.data?.previous
        ? html`<div class="row">
          <button disabled=${!page.data?.previous} onClick=${() => setCursor(page.data?.previous ?? undefined)}>Newer</button>
          <button disabled=${!page.data?.next} onClick=${() => setCursor(page.data?.next ?? undefined)}>Older</button>
        </div>`
        : null
    }`;
}

/** The feedback screen: a project's user feedback, newest first. */
export function FeedbackList({ org }: { org: string }) {
  const projects = useAsync(() => get<Project[]>(`/organizations/${enc(org)}/projects/`), [org]);
  const [chosen, setChosen] = useState("");
  const project = chosen || projects.data?.[0]?.slug || "";
  return html`<h1>User feedback</h1>
    <${Failure} error=${projects.error} /><${Loading} when=${projects.loading && !projects.data} />
    ${
      projects.data?.length
        ? html`<div class="row"><label for="feedback-project">Project</label>
          <select id="feedback-project" value=${project} onChange=${(e: Event) => setChosen((e.target as HTMLSelectElement).value)}>
            ${projects.data.map((p) => html`<option value=${p.slug}>${p.slug}</option>`)}
          </select></div>`
        : null
    }
    ${project ? html`<section class="card" aria-label="Feedback"><${FeedbackPage} org=${org} project=${project} path=${`/projects/${enc(org)}/${enc(project)}/user-feedback/`} /></section>` : null}`;
}

/** The issue page's user reports. */
export function UserReports({ org, issueId, project }: { org: string; issueId: string; project: string }) {
  return html`<${Section} title="User reports">
    <${FeedbackPage} org=${org} project=${project} path=${`/organizations/${enc(org)}/issues/${enc(issueId)}/user-reports/`} />
  </${Section}>`;
}
