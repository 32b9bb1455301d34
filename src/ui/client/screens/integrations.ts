import { useState } from "preact/hooks";
import { enc, get, qs, request } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Section, Time } from "../parts/common.js";
import type { Project } from "../types.js";

interface Hook { id: string; url: string; events: string[]; status: string; dateCreated: string }
interface Installation { uuid: string; app: { slug: string; name?: string }; status: string; scopes?: string[]; pendingScopes?: string[] }
interface Delivery {
  id: string; destinationType: string; eventType: string; status: string; attempts: number;
  lastResponseCode: number | null; lastError: string | null; dateCreated: string; nextAttemptAt: string | null;
}

function Hooks({ org }: { org: string }) {
  const hooks = useAsync(async () => {
    const projects = await get<Project[]>(`/organizations/${enc(org)}/projects/`);
    // Service hooks are a per-project feature: other projects answer 403.
    const withHooks = projects.filter((p) => p.features?.includes("servicehooks"));
    const lists = await Promise.all(withHooks.map(async (p) => ({ project: p, hooks: await get<Hook[]>(`/projects/${enc(org)}/${enc(p.slug)}/hooks/`).catch(() => []) })));
    return lists.filter((list) => list.hooks.length);
  }, [org]);
  return html`<${Section} title="Service hooks">
    <${Failure} error=${hooks.error} /><${Loading} when=${hooks.loading && !hooks.data} />
    ${hooks.data && !hooks.data.length ? html`<p class="muted">No service hooks.</p>` : null}
    ${(hooks.data ?? []).map(({ project, hooks: list }) => html`<h3>${project.slug}</h3><ul class="plain">
      ${list.map((hook) => html`<li><code>${hook.url}</code> <span class="badge">${hook.status}</span> <span class="muted">${hook.events.join(", ")}</span></li>`)}</ul>`)}
  </${Section}>`;
}

function Installations({ org }: { org: string }) {
  const list = useAsync(() => get<Installation[]>(`/organizations/${enc(org)}/svc-app-installations/`), [org]);
  return html`<${Section} title="App installations">
    <${Failure} error=${list.error} /><${Loading} when=${list.loading && !list.data} />
    <ul class="plain">${(list.data ?? []).map((inst) => html`<li><strong>${inst.app.name ?? inst.app.slug}</strong> <span class="badge">${inst.status}</span>
      <span class="muted">${(inst.scopes ?? []).join(" ")}${inst.pendingScopes?.length ? ` · pending: ${inst.pendingScopes.join(" ")}` : ""}</span></li>`)}</ul>
  </${Section}>`;
}

function Deliveries({ org }: { org: string }) {
  const [status, setStatus] = useState("");
  const [cursor, setCursor] = useState("");
  const [notice, setNotice] = useState("");
  const page = useAsync(() => request<Delivery[]>("GET", `/organizations/${enc(org)}/deliveries/${qs({ status, cursor, per_page: "25" })}`), [org, status, cursor], true);
  const redeliver = async (id: string) => {
    try {
      await request("POST", `/organizations/${enc(org)}/deliveries/${enc(id)}/redeliver/`);
      setNotice(`Delivery ${id} queued again.`);
      page.reload();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  return html`<${Section} title="Delivery log">
    <label>Status <select value=${status} onChange=${(e: Event) => { setCursor(""); setStatus((e.target as HTMLSelectElement).value); }}>
      <option value="">All</option><option value="pending">Pending</option><option value="delivered">Delivered</option><option value="failed">Failed</option>
    </select></label> <span class="muted" role="status">${notice}</span>
    <${Failure} error=${page.error} />
    <div class="scroll"><table>
      <thead><tr><th scope="col">Event</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(page.data?.data ?? []).map((d) => html`<tr>
        <td>${d.eventType}</td><td>${d.destinationType}</td><td><span class="badge">${d.status}</span></td><td>${d.attempts}</td>
        <td>${d.lastResponseCode ?? d.lastError ?? "—"}</td><td><${Time} iso=${d.dateCreated} /></td>
        <td><button onClick=${() => redeliver(d.id)} aria-label=${`Redeliver ${d.eventType} ${d.id}`}>Redeliver</button></td>
      </tr>`)}</tbody>
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
