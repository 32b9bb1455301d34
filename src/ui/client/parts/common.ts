import type { ComponentChildren } from "preact";
import { ago, exact } from "../format.js";
import { html } from "../html.js";

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime=${iso} title=${exact(iso)}>${ago(iso)}</time>`;
}

export function Level({ level }: { level: string }) {
  return html`<span class=${`badge level-${level}`}>${level}</span>`;
}

export function Status({ status, substatus }: { status: string; substatus?: string | null }) {
  return html`<span class=${`badge status-${status}`}>${status}${substatus && status === "unresolved" ? ` · ${substatus}` : ""}</span>`;
}

export function Failure({ error }: { error: Error | undefined }) {
  return error ? html`<p class="error" role="alert">${error.message}</p>` : null;
}

export function Loading({ when }: { when: boolean }) {
  return when ? html`<p class="muted" aria-live="polite">Loading…</p>` : null;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return html`<section class="card"><h2>${title}</h2>${children}</section>`;
}

/** A definition list of a plain object's entries (contexts, user, request headers). */
export function Pairs({ entries }: { entries: Array<[string, unknown]> }) {
  if (!entries.length) return html`<p class="muted">None.</p>`;
  return html`<dl class="pairs">
    ${entries.map(([key, value]) => html`<dt>${key}</dt><dd>${typeof value === "string" ? value : JSON.stringify(value)}</dd>`)}
  </dl>`;
}
