import type { ComponentChildren } from "preact";
import { ApiFailure } from "../api.js";
import { config } from "../config.js";
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

/**
 * The host's sign-in page with the page to come back to: a path (never the origin), which the
 * host's sign-in can check is local before redirecting.
 */
function signInHref(): string | null {
  if (!config.signInUrl) return null;
  const url = new URL(config.signInUrl, location.href);
  if (config.signInReturnParam)
    url.searchParams.set(config.signInReturnParam, location.pathname + location.search + location.hash);
  return url.href;
}

export function Failure({ error }: { error: Error | undefined }) {
  if (!error) return null;
  // 401: the host's authenticate hook found no session (the dashboard holds no token of its own).
  const signedOut = error instanceof ApiFailure && error.status === 401;
  if (!signedOut) return html`<p class="error" role="alert">${error.message}</p>`;
  const href = signInHref();
  if (href) {
    return html`<div class="error" role="alert">
      <p>You are not signed in to this application (the Faultline API answered 401).</p>
      <p><a href=${href}>Sign in</a></p>
    </div>`;
  }
  // Whoever sees this first is usually the developer mounting the dashboard: name what to configure.
  return html`<div class="error" role="alert">
    <p>You are not signed in to this application (the Faultline API answered 401). Sign in to it, then reload.</p>
    <p class="muted">
      For the host: the <code>authenticate</code> hook given to <code>createFaultline</code> found no session for this browser. Pass
      <code>signInUrl</code> to <code>createDashboard</code> to show a sign-in link here (see docs/dashboard.md, "Signing in").
    </p>
  </div>`;
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
