import { useEffect, useRef, useState } from "preact/hooks";
import { enc, get, qs, request } from "../api.js";
import { count } from "../format.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Sparkline } from "../parts/charts.js";
import { Failure, Level, Loading, Status, Time } from "../parts/common.js";
import { href, navigate } from "../router.js";
import type { Issue, Project } from "../types.js";
import { SearchBox } from "./search-box.js";

const PAGE = 25;

/** The stream's state lives in the URL (shareable, back button works). */
function filtersOf(params: URLSearchParams) {
  return {
    query: params.get("query") ?? "is:unresolved",
    project: params.get("project") ?? "",
    environment: params.get("environment") ?? "",
    statsPeriod: params.get("statsPeriod") ?? "24h",
    sort: params.get("sort") ?? "date",
    cursor: params.get("cursor") ?? "",
  };
}
type Filters = ReturnType<typeof filtersOf>;

export function Stream({ org, params }: { org: string; params: URLSearchParams }) {
  const filters = filtersOf(params);
  const go = (change: Partial<Filters>) => navigate(`/${enc(org)}${qs({ ...filters, cursor: "", ...change })}`);
  const page = useAsync(
    () => request<Issue[]>("GET", `/organizations/${enc(org)}/issues/${qs({ ...filters, limit: String(PAGE) })}`),
    [org, params.toString()],
    true,
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState("");
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => setSelected(new Set()), [params.toString()]);
  useEffect(() => keyboard(list), []);
  const issues = page.data?.data ?? [];

  const bulk = async (body: Record<string, unknown>, what: string) => {
    const ids = [...selected];
    try {
      await request("PUT", `/organizations/${enc(org)}/issues/${qs({ id: ids })}`, body);
      setNotice(`${what} ${ids.length} issue${ids.length === 1 ? "" : "s"}.`);
      setSelected(new Set());
      page.reload();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const hits = hitsText(page.data?.hits ?? issues.length, page.data?.maxHits ?? null);

  return html`
    <h1>Issues</h1>
    <${StreamFilters} org=${org} filters=${filters} go=${go} />
    <${BulkToolbar} issues=${issues} selected=${selected} setSelected=${setSelected} bulk=${bulk}
      status=${`${hits} issues${selected.size ? ` · ${selected.size} selected` : ""} ${notice}`} />
    <${Failure} error=${page.error} />
    <${Loading} when=${page.loading && !page.data} />
    ${page.data && !issues.length ? html`<p class="empty">No issues match.</p>` : null}
    <ul class="issues" ref=${list} aria-label="Issues (j/k to move, x to select)">
      ${issues.map(
        (issue) => html`<${IssueRow} key=${issue.id} org=${org} issue=${issue} period=${filters.statsPeriod}
          selected=${selected.has(issue.id)} toggle=${toggle} />`,
      )}
    </ul>
    <nav class="pager" aria-label="Pages">
      <button disabled=${!page.data?.previous} onClick=${() => go({ ...filters, cursor: page.data?.previous ?? "" })}>Previous</button>
      <button disabled=${!page.data?.next} onClick=${() => go({ ...filters, cursor: page.data?.next ?? "" })}>Next</button>
    </nav>
  `;
}

/** Search, project, environment, period and sort: each change navigates (the state is the URL). */
function StreamFilters({
  org,
  filters,
  go,
}: {
  org: string;
  filters: Filters;
  go: (change: Partial<Filters>) => void;
}) {
  const projects = useAsync(() => get<Project[]>(`/organizations/${enc(org)}/projects/`), [org]);
  return html`
    <form class="filters" role="search" onSubmit=${(e: Event) => {
      e.preventDefault();
      const data = new FormData(e.target as HTMLFormElement);
      go({ query: String(data.get("query") ?? ""), environment: String(data.get("environment") ?? "") });
    }}>
      <${SearchBox} key=${filters.query} org=${org} value=${filters.query} />
      <label>Project
        <select name="project" value=${filters.project} onChange=${(e: Event) => go({ project: (e.target as HTMLSelectElement).value })}>
          <option value="">All projects</option>
          ${(projects.data ?? []).map((p) => html`<option value=${p.id}>${p.slug}</option>`)}
        </select>
      </label>
      <label>Environment <input name="environment" value=${filters.environment} placeholder="any" size="10" /></label>
      <label>Period
        <select value=${filters.statsPeriod} onChange=${(e: Event) => go({ statsPeriod: (e.target as HTMLSelectElement).value })}>
          <option value="24h">24 hours</option><option value="14d">14 days</option>
        </select>
      </label>
      <label>Sort
        <select value=${filters.sort} onChange=${(e: Event) => go({ sort: (e.target as HTMLSelectElement).value })}>
          <option value="date">Last seen</option><option value="new">First seen</option><option value="freq">Events</option><option value="user">Users</option>
        </select>
      </label>
      <button type="submit">Search</button>
    </form>
  `;
}

interface BulkToolbarProps {
  issues: Issue[];
  selected: Set<string>;
  setSelected: (ids: Set<string>) => void;
  bulk: (body: Record<string, unknown>, what: string) => Promise<void>;
  status: string;
}

/** Select all, and resolve, ignore, reopen or assign the selected issues in one request. */
function BulkToolbar({ issues, selected, setSelected, bulk, status }: BulkToolbarProps) {
  return html`
    <div class="toolbar" role="toolbar" aria-label="Bulk actions">
      <label class="check"><input type="checkbox" checked=${issues.length > 0 && selected.size === issues.length}
        onChange=${(e: Event) => setSelected(new Set((e.target as HTMLInputElement).checked ? issues.map((i) => i.id) : []))} /> Select all</label>
      <button disabled=${!selected.size} onClick=${() => bulk({ status: "resolved" }, "Resolved")}>Resolve</button>
      <button disabled=${!selected.size} onClick=${() => bulk({ status: "ignored" }, "Ignored")}>Ignore</button>
      <button disabled=${!selected.size} onClick=${() => bulk({ status: "unresolved" }, "Reopened")}>Unresolve</button>
      <form class="row" onSubmit=${(e: Event) => {
        e.preventDefault();
        const to = String(new FormData(e.target as HTMLFormElement).get("assignee") ?? "").trim();
        void bulk({ assignedTo: to || null }, to ? `Assigned to ${to}:` : "Unassigned");
      }}>
        <label class="sr-only" for="bulk-assignee">Assign selected issues to (username, email or #team; empty unassigns)</label>
        <input id="bulk-assignee" name="assignee" placeholder="username or #team" size="14" />
        <button disabled=${!selected.size}>Assign</button>
      </form>
      <span class="muted" aria-live="polite">${status}</span>
    </div>
  `;
}

interface IssueRowProps {
  org: string;
  issue: Issue;
  period: string;
  selected: boolean;
  toggle: (id: string) => void;
}

function IssueRow({ org, issue, period, selected, toggle }: IssueRowProps) {
  return html`<li class="issue">
    <input type="checkbox" aria-label=${`Select ${issue.shortId}`} checked=${selected} onChange=${() => toggle(issue.id)} />
    <div class="what">
      <a class="title" href=${href(`/${enc(org)}/issues/${issue.id}`)}>${issue.title}</a>
      <div class="meta"><span>${issue.shortId}</span> <${Level} level=${issue.level} /> <${Status} status=${issue.status} substatus=${issue.substatus} />
        <span class="culprit">${issue.culprit}</span> <${Time} iso=${issue.lastSeen} />${issue.assignedTo ? html` · ${issue.assignedTo}` : null}</div>
    </div>
    <${Sparkline} points=${issue.stats?.[period]} label=${`${issue.shortId}, last ${period}`} />
    <div class="num"><strong>${count(issue.count)}</strong><span class="muted">events</span></div>
    <div class="num"><strong>${count(issue.userCount)}</strong><span class="muted">users</span></div>
  </li>`;
}

/** The API counts up to X-Max-Hits: at the cap, "1000+". */
function hitsText(hits: number, max: number | null): string {
  return max !== null && hits >= max ? `${max}+` : String(hits);
}

/** j/k move between issues, x selects the focused one, / goes to the search box. */
function keyboard(list: { current: HTMLUListElement | null }) {
  const onKey = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement;
    if (event.ctrlKey || event.metaKey || event.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (event.key === "/") {
      event.preventDefault();
      document.getElementById("search")?.focus();
      return;
    }
    const links = [...(list.current?.querySelectorAll<HTMLAnchorElement>("a.title") ?? [])];
    const at = links.findIndex((link) => link === document.activeElement);
    if (event.key === "j" || event.key === "k") {
      event.preventDefault();
      links[Math.min(links.length - 1, Math.max(0, at + (event.key === "j" ? 1 : -1)))]?.focus();
    } else if (event.key === "x" && at >= 0) {
      links[at]?.closest("li")?.querySelector<HTMLInputElement>("input[type=checkbox]")?.click();
    }
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
