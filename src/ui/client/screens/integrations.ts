import { useState } from "preact/hooks";
import { enc, get, qs, request } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Section, Time } from "../parts/common.js";
import type { Project } from "../types.js";

interface Hook {
  id: string;
  url: string;
  events: string[];
  status: string;
  dateCreated: string;
}
interface Installation {
  uuid: string;
  app: { slug: string; name?: string };
  status: string;
  scopes?: string[];
  pendingScopes?: string[];
}
interface Delivery {
  id: string;
  eventType: string;
  status: string;
  state: string;
  attempts: number;
  target: { type: string; id: string; url: string; name: string | null };
  lastAttemptAt: string | null;
  lastResponseCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  dateCreated: string;
  nextAttemptAt: string | null;
}
interface Attempt {
  attempt: number;
  date: string;
  url: string;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

/** The filters the API offers; "failed" includes deliveries that are still being retried. */
const FILTERS: Array<[string, string]> = [
  ["", "All"],
  ["failed", "Failed (last attempt)"],
  ["retrying", "Retrying"],
  ["dead", "Given up"],
  ["pending", "Pending"],
  ["delivered", "Delivered"],
  ["cancelled", "Cancelled"],
];

/** An attempt's outcome in a few words: the HTTP status, or the error when nothing answered. */
function Outcome({
  code,
  error,
  durationMs,
}: {
  code: number | null;
  error: string | null;
  durationMs: number | null;
}) {
  const failed = code === null || code < 200 || code >= 300;
  return html`<span class=${failed ? "outcome-failed" : "outcome-ok"}>${code === null ? "no answer" : `HTTP ${code}`}</span>${durationMs === null ? "" : html` <span class="muted">${durationMs} ms</span>`}${error ? html`<div class="delivery-error">${error}</div>` : null}`;
}

/** An opened delivery: every recorded attempt, reloaded when its attempt count changes. */
function AttemptHistory({ org, id, attempts }: { org: string; id: string; attempts: number }) {
  const detail = useAsync(
    () => get<{ history: Attempt[] }>(`/organizations/${enc(org)}/deliveries/${enc(id)}/`),
    [org, id, attempts],
  );
  if (detail.error) return html`<${Failure} error=${detail.error} />`;
  if (!detail.data) return html`<${Loading} when=${true} />`;
  if (!detail.data.history.length) return html`<p class="muted">Not attempted yet.</p>`;
  return html`<table class="attempts">
    <caption class="sr-only">Attempts of delivery ${id}</caption>
    <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Outcome</th><th scope="col">URL</th></tr></thead>
    <tbody>${detail.data.history.map(
      (a) => html`<tr>
      <td>${a.attempt}</td><td><${Time} iso=${a.date} /></td><td><${Outcome} code=${a.responseCode} error=${a.error} durationMs=${a.durationMs} /></td><td><code>${a.url}</code></td>
    </tr>`,
    )}</tbody>
  </table>`;
}

function Hooks({ org }: { org: string }) {
  const hooks = useAsync(async () => {
    const projects = await get<Project[]>(`/organizations/${enc(org)}/projects/`);
    // Service hooks are a per-project feature: other projects answer 403.
    const withHooks = projects.filter((p) => p.features?.includes("servicehooks"));
    const lists = await Promise.all(
      withHooks.map(async (p) => ({
        project: p,
        hooks: await get<Hook[]>(`/projects/${enc(org)}/${enc(p.slug)}/hooks/`).catch(() => []),
      })),
    );
    return lists.filter((list) => list.hooks.length);
  }, [org]);
  return html`<${Section} title="Service hooks">
    <${Failure} error=${hooks.error} /><${Loading} when=${hooks.loading && !hooks.data} />
    ${hooks.data && !hooks.data.length ? html`<p class="muted">No service hooks.</p>` : null}
    ${(hooks.data ?? []).map(
      ({ project, hooks: list }) => html`<h3>${project.slug}</h3><ul class="plain">
      ${list.map((hook) => html`<li><code>${hook.url}</code> <span class="badge">${hook.status}</span> <span class="muted">${hook.events.join(", ")}</span></li>`)}</ul>`,
    )}
  </${Section}>`;
}

function Installations({ org }: { org: string }) {
  const list = useAsync(() => get<Installation[]>(`/organizations/${enc(org)}/svc-app-installations/`), [org]);
  return html`<${Section} title="App installations">
    <${Failure} error=${list.error} /><${Loading} when=${list.loading && !list.data} />
    <ul class="plain">${(list.data ?? []).map(
      (inst) => html`<li><strong>${inst.app.name ?? inst.app.slug}</strong> <span class="badge">${inst.status}</span>
      <span class="muted">${(inst.scopes ?? []).join(" ")}${inst.pendingScopes?.length ? ` · pending: ${inst.pendingScopes.join(" ")}` : ""}</span></li>`,
    )}</ul>
  </${Section}>`;
}

function Deliveries({ org }: { org: string }) {
  const [status, setStatus] = useState("");
  const [cursor, setCursor] = useState("");
  const [notice, setNotice] = useState("");
  const [opened, setOpened] = useState<string | null>(null);
  const page = useAsync(
    () => request<Delivery[]>("GET", `/organizations/${enc(org)}/deliveries/${qs({ status, cursor, per_page: "25" })}`),
    [org, status, cursor],
    true,
  );
  const redeliver = async (id: string) => {
    try {
      await request("POST", `/organizations/${enc(org)}/deliveries/${enc(id)}/redeliver/`);
      setNotice(`Delivery ${id} queued again.`);
      page.reload();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  const rows = page.data?.data ?? [];
  return html`<${Section} title="Delivery log">
    <label>Status <select value=${status} onChange=${(e: Event) => {
      setCursor("");
      setOpened(null);
      setStatus((e.target as HTMLSelectElement).value);
    }}>
      ${FILTERS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
    </select></label> <span class="muted" role="status">${notice}</span>
    <${Failure} error=${page.error} />
    ${page.data && !rows.length ? html`<p class="muted">No deliveries${status ? " with this status" : ""}.</p>` : null}
    <div class="scroll"><table class="deliveries">
      <thead><tr><th scope="col">Event</th><th scope="col">Target</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Next retry</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${rows.map(
        (d) => html`<tr class="delivery">
        <td><button class="link" aria-expanded=${opened === d.id} aria-controls=${`attempts-${d.id}`} onClick=${() => setOpened(opened === d.id ? null : d.id)}
          aria-label=${`Attempts of ${d.eventType} ${d.id}`}>${d.eventType}</button></td>
        <td><strong>${d.target.name ?? d.target.type}</strong><div><code class="target-url">${d.target.url}</code></div></td>
        <td><span class=${`badge state-${d.state}`}>${d.state}</span></td><td>${d.attempts}</td>
        <td>${d.lastAttemptAt ? html`<${Outcome} code=${d.lastResponseCode} error=${d.lastError} durationMs=${d.lastDurationMs} />` : html`<span class="muted">—</span>`}</td>
        <td>${d.state === "queued" || d.state === "retrying" ? html`<${Time} iso=${d.nextAttemptAt} />` : html`<span class="muted">—</span>`}</td>
        <td><${Time} iso=${d.dateCreated} /></td>
        <td><button onClick=${() => redeliver(d.id)} aria-label=${`Redeliver ${d.eventType} ${d.id}`}>Redeliver</button></td>
      </tr>${opened === d.id ? html`<tr class="delivery-attempts" id=${`attempts-${d.id}`}><td colspan="8"><${AttemptHistory} org=${org} id=${d.id} attempts=${d.attempts} /></td></tr>` : null}`,
      )}</tbody>
    </table></div>
    <nav class="pager" aria-label="Delivery pages">
      <button disabled=${!page.data?.previous} onClick=${() => setCursor(page.data?.previous ?? "")}>Previous</button>
      <button disabled=${!page.data?.next} onClick=${() => setCursor(page.data?.next ?? "")}>Next</button>
    </nav>
  </${Section}>`;
}

export function Integrations({ org }: { org: string }) {
  return html`<h1>Integrations</h1><${Installations} org=${org} /><${Hooks} org=${org} /><${Deliveries} org=${org} />`;
}
