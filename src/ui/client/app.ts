import { useEffect, useRef, useState } from "preact/hooks";
import { get } from "./api.js";
import { config } from "./config.js";
import { useAsync } from "./hooks.js";
import { html } from "./html.js";
import { Failure, Loading } from "./parts/common.js";
import { href, navigate, onLinkClick, useLocation } from "./router.js";
import { Alerts } from "./screens/alerts.js";
import { Crons } from "./screens/crons.js";
import { FeedbackList } from "./screens/feedback.js";
import { IssueDetail } from "./screens/issue.js";
import { NotificationSettings } from "./screens/notifications.js";
import { Integrations } from "./screens/integrations.js";
import { Projects } from "./screens/projects.js";
import { SharedIssueView } from "./screens/shared-issue.js";
import { Releases } from "./screens/releases.js";
import { Stream } from "./screens/stream.js";
import type { Organization } from "./types.js";

const SECTIONS = [
  ["", "Issues"],
  ["/projects", "Projects"],
  ["/releases", "Releases"],
  ["/integrations", "Integrations"],
  ["/alerts", "Alerts"],
  ["/crons", "Crons"],
  ["/feedback", "Feedback"],
  ["/notifications", "Notifications"],
] as const;

/** The root without an `organization` option: the caller's organizations, or a slug to open. */
function OrganizationPicker() {
  const [slug, setSlug] = useState("");
  const organizations = useAsync(() => get<Organization[]>("/organizations/"), []);
  const list = organizations.data;
  return html`<main id="main" class="narrow">
    <h1>Faultline</h1>
    <section class="card" aria-labelledby="orgs-title">
      <h2 id="orgs-title">Your organizations</h2>
      <${Failure} error=${organizations.error} /><${Loading} when=${organizations.loading && !list} />
      ${list && !list.length ? html`<p class="muted">You are not a member of any organization.</p>` : null}
      ${
        list?.length
          ? html`<ul class="orgs">
            ${list.map((o) => html`<li><a href=${href(`/${encodeURIComponent(o.slug)}`)}>${o.name}</a> <span class="muted">${o.slug}</span></li>`)}
          </ul>`
          : null
      }
    </section>
    <form
      class="card"
      onSubmit=${(event: Event) => {
        event.preventDefault();
        if (slug.trim()) navigate(`/${encodeURIComponent(slug.trim())}`);
      }}
    >
      <label for="org-slug">Organization slug</label>
      <div class="row"><input id="org-slug" value=${slug} onInput=${(e: Event) => setSlug((e.target as HTMLInputElement).value)} required /><button>Open</button></div>
    </form>
  </main>`;
}

/**
 * Routes: /{org}, /{org}/issues/{id}, /{org}/projects, /{org}/releases, /{org}/integrations,
 * /{org}/alerts, /{org}/crons, /{org}/feedback, /{org}/notifications; and
 * /share/issue/{shareId}/, a shared issue, for anyone (Sentry's path).
 */
export function App() {
  const location = useLocation();
  const [org, section, id] = location.path.split("/").filter(Boolean).map(decodeURIComponent);
  useEffect(() => {
    if (!org && config.organization) navigate(`/${encodeURIComponent(config.organization)}`, true);
  }, [org]);
  // A new screen: move focus to it (screen readers announce it; Tab starts from there), as a page load would.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else document.getElementById("main")?.focus({ preventScroll: true });
  }, [location.path]);
  useEffect(() => {
    document.addEventListener("click", onLinkClick);
    return () => document.removeEventListener("click", onLinkClick);
  }, []);
  // After every hook: a shared issue has no organization's navigation (its viewer may have no account).
  if (org === "share" && section === "issue" && id) return html`<${SharedIssueView} shareId=${id} />`;
  if (!org) return config.organization ? null : html`<${OrganizationPicker} />`;
  const current = section === "issues" ? "" : section ? `/${section}` : "";
  let screen;
  if (section === "issues" && id) screen = html`<${IssueDetail} org=${org} id=${id} params=${location.params} />`;
  else if (section === "projects") screen = html`<${Projects} org=${org} />`;
  else if (section === "releases") screen = html`<${Releases} org=${org} />`;
  else if (section === "integrations") screen = html`<${Integrations} org=${org} />`;
  else if (section === "alerts") screen = html`<${Alerts} org=${org} />`;
  else if (section === "crons") screen = html`<${Crons} org=${org} />`;
  else if (section === "feedback") screen = html`<${FeedbackList} org=${org} />`;
  else if (section === "notifications") screen = html`<${NotificationSettings} org=${org} />`;
  else screen = html`<${Stream} org=${org} params=${location.params} />`;
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${href(`/${encodeURIComponent(org)}`)}>Faultline <span class="muted">${org}</span></a>
      <nav aria-label="Sections">
        <ul>
          ${SECTIONS.map(
            ([path, label]) =>
              html`<li><a href=${href(`/${encodeURIComponent(org)}${path}`)} aria-current=${current === path ? "page" : undefined}>${label}</a></li>`,
          )}
        </ul>
      </nav>
    </header>
    <main id="main" tabindex="-1">${screen}</main>
  `;
}
