import { useState } from "preact/hooks";
import { enc, get } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Time } from "../parts/common.js";
import type { Project } from "../types.js";

interface Key {
  id: string;
  name: string;
  isActive: boolean;
  dateCreated: string;
  dsn: { public: string };
}

function CopyField({ id, value, label }: { id: string; value: string; label: string }) {
  const [copied, setCopied] = useState("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("Copied.");
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied("Selected: press Ctrl+C.");
    }
  };
  return html`<div class="row"><input id=${id} class="mono grow" readonly value=${value} aria-label=${label} />
    <button onClick=${copy} aria-label=${`Copy ${label}`}>Copy DSN</button><span class="muted" role="status">${copied}</span></div>`;
}

function ProjectKeys({ org, project }: { org: string; project: Project }) {
  const keys = useAsync(() => get<Key[]>(`/projects/${enc(org)}/${enc(project.slug)}/keys/`), [org, project.slug]);
  return html`<section class="card">
    <h2>${project.name || project.slug} <span class="muted">${project.slug} · ${project.platform ?? "no platform"}</span></h2>
    <${Failure} error=${keys.error} /><${Loading} when=${keys.loading && !keys.data} />
    ${(keys.data ?? []).map(
      (key) => html`<div class="key">
      <p>${key.name} ${key.isActive ? null : html`<span class="badge">inactive</span>`} <span class="muted">created <${Time} iso=${key.dateCreated} /></span></p>
      <${CopyField} id=${`dsn-${key.id}`} value=${key.dsn.public} label=${`DSN of ${project.slug} (${key.name})`} />
    </div>`,
    )}
  </section>`;
}

export function Projects({ org }: { org: string }) {
  const projects = useAsync(() => get<Project[]>(`/organizations/${enc(org)}/projects/`), [org]);
  return html`<h1>Projects</h1>
    <${Failure} error=${projects.error} /><${Loading} when=${projects.loading && !projects.data} />
    ${(projects.data ?? []).map((project) => html`<${ProjectKeys} key=${project.id} org=${org} project=${project} />`)}`;
}
