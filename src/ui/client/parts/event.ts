import { useState } from "preact/hooks";
import { html } from "../html.js";
import type { Breadcrumb, Entry, ExceptionValue, Frame, SentryEvent } from "../types.js";
import { Pairs, Section } from "./common.js";

const entry = <T extends Entry["type"]>(event: Pick<SentryEvent, "entries">, type: T) =>
  event.entries.find((e): e is Extract<Entry, { type: T }> => e.type === type);

function FrameView({ frame }: { frame: Frame }) {
  const where = `${frame.filename ?? frame.absPath ?? frame.module ?? "?"}${frame.lineNo ? `:${frame.lineNo}` : ""}${frame.colNo ? `:${frame.colNo}` : ""}`;
  return html`<li class=${frame.inApp ? "frame in-app" : "frame"}>
    <div><code class="fn">${frame.function ?? "<anonymous>"}</code> <span class="muted">in</span> <code>${where}</code>${frame.inApp ? html` <span class="badge">in app</span>` : null}</div>
    ${
      frame.context?.length
        ? html`<pre class="context">${frame.context.map(([line, code]) => html`<span class=${line === frame.lineNo ? "hit" : ""}><span class="ln">${line}</span>${code}\n</span>`)}</pre>`
        : null
    }
  </li>`;
}

/** Most recent call first; in-app frames shown, the library frames behind a toggle. */
function Stack({ frames }: { frames: Frame[] }) {
  const [all, setAll] = useState(false);
  const ordered = [...frames].reverse();
  const inApp = ordered.filter((frame) => frame.inApp);
  const shown = all || !inApp.length ? ordered : inApp;
  const hidden = ordered.length - inApp.length;
  return html`<ol class="frames">${shown.map((frame) => html`<${FrameView} frame=${frame} />`)}</ol>
    ${inApp.length && hidden ? html`<button class="link" aria-expanded=${all} onClick=${() => setAll(!all)}>${all ? "Only in-app frames" : `Show ${hidden} library frames`}</button>` : null}`;
}

/** The exception chain, the raised exception first (SDKs send the cause first). */
function Exceptions({ values }: { values: ExceptionValue[] }) {
  return html`${[...values].reverse().map(
    (value, i) => html`<div class="exception">
    ${i > 0 ? html`<p class="muted">caused by</p>` : null}
    <h3><code>${value.type ?? "Error"}</code>${value.value ? html`: ${value.value}` : null}</h3>
    ${value.mechanism ? html`<p class="muted">mechanism ${value.mechanism.type ?? "?"}${value.mechanism.handled === false ? " · unhandled" : ""}</p>` : null}
    ${value.stacktrace?.frames?.length ? html`<${Stack} frames=${value.stacktrace.frames} />` : null}
  </div>`,
  )}`;
}

function Breadcrumbs({ values }: { values: Breadcrumb[] }) {
  const time = (t: Breadcrumb["timestamp"]) =>
    t === null || t === undefined ? "" : new Date(typeof t === "number" ? t * 1000 : t).toLocaleTimeString();
  return html`<div class="scroll"><table>
    <thead><tr><th scope="col">Time</th><th scope="col">Category</th><th scope="col">Level</th><th scope="col">Message</th></tr></thead>
    <tbody>${values.map(
      (
        crumb,
      ) => html`<tr><td>${time(crumb.timestamp)}</td><td>${crumb.category ?? crumb.type ?? ""}</td><td>${crumb.level ?? ""}</td>
      <td>${crumb.message ?? (crumb.data ? JSON.stringify(crumb.data) : "")}</td></tr>`,
    )}</tbody>
  </table></div>`;
}

/**
 * A shared issue's event (screens/shared-issue.ts): its message, stack trace and request line,
 * all the public answer holds.
 */
export function SharedEventView({ event }: { event: Pick<SentryEvent, "entries"> }) {
  const exception = entry(event, "exception");
  const req = entry(event, "request");
  const message = entry(event, "message");
  return html`
    ${message?.data.formatted ? html`<${Section} title="Message"><pre class="message">${message.data.formatted}</pre></${Section}>` : null}
    ${exception ? html`<${Section} title="Stack trace"><${Exceptions} values=${exception.data.values} /></${Section}>` : null}
    ${req ? html`<${Section} title="Request"><p><code>${req.data.method ?? "GET"} ${req.data.url ?? ""}</code></p></${Section}>` : null}
  `;
}

export function EventView({ event }: { event: SentryEvent }) {
  const exception = entry(event, "exception");
  const crumbs = entry(event, "breadcrumbs");
  const req = entry(event, "request");
  const message = entry(event, "message");
  return html`
    ${message?.data.formatted ? html`<${Section} title="Message"><pre class="message">${message.data.formatted}</pre></${Section}>` : null}
    ${exception ? html`<${Section} title="Stack trace"><${Exceptions} values=${exception.data.values} /></${Section}>` : null}
    ${crumbs?.data.values.length ? html`<${Section} title="Breadcrumbs"><${Breadcrumbs} values=${crumbs.data.values} /></${Section}>` : null}
    ${
      req
        ? html`<${Section} title="Request">
      <p><code>${req.data.method ?? "GET"} ${req.data.url ?? ""}</code></p>
      <${Pairs} entries=${[...(req.data.query ?? []), ...(req.data.headers ?? [])]} />
    </${Section}>`
        : null
    }
    <${Section} title="User"><${Pairs} entries=${Object.entries(event.user ?? {}).filter(([, v]) => v !== null)} /></${Section}>
    <${Section} title="Tags"><ul class="tags">${event.tags.map((tag) => html`<li><span class="muted">${tag.key}</span> ${tag.value}</li>`)}</ul></${Section}>
    <${Section} title="Contexts">
      ${Object.entries(event.contexts ?? {}).map(([name, values]) => html`<h3>${name}</h3><${Pairs} entries=${Object.entries(values ?? {})} />`)}
      ${event.sdk?.name ? html`<p class="muted">SDK ${event.sdk.name} ${event.sdk.version ?? ""}</p>` : null}
    </${Section}>
  `;
}
