import type { ComponentChildren } from "preact";
import { ApiFailure } from "../api.js";
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
  if (!error) return null;
  // 401: the host's authenticate hook found no session (the dashboard holds no token of its own).
  const signedOut = error instanceof ApiFailure && error.status === 401;
  return html`<p class="error" role="alert">${signedOut ? "You are not signed in to this application (the Faultline API answered 401). Sign in, then reload." : error.message}</p>`;
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
