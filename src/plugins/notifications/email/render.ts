import type { Notification, NotificationCategory, NotificationReason } from "../notifier.js";
import { subjectOf } from "../subject.js";

/** An email as stored in the outbox: sent as is on every attempt. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

const SUBJECT_LIMIT = 200;
const TITLE_LIMIT = 500;
const COMMENT_LIMIT = 2_000;
/** Entries a digest lists (the newest); the rest are counted. */
const DIGEST_ENTRIES = 50;

const WHY: Record<NotificationReason, string> = {
  alert: "an alert rule of this project notifies you",
  incident: "a metric alert of this organization notifies you",
  throttled: "you manage this organization",
  assigned: "the issue was assigned to you or your team",
  commented: "you follow this issue",
  regression: "you follow this issue",
  resolved: "you follow this issue",
  unsnoozed: "you follow this issue",
};

/** A category as an email names it ("Turn off alert emails"). */
export const CATEGORY_NAMES: Record<NotificationCategory, string> = {
  alerts: "alert",
  workflow: "issue workflow",
};

/** One line, at most `limit` characters, with no control characters (a header must stay one header). */
function oneLine(text: string, limit: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * One notification, or a digest of several, as an email with plain-text and HTML parts. The
 * subject is scannable (`[web] TypeError: x is undefined`); the body has the issue's facts, the top
 * of the stack trace, the link to the issue in the dashboard, and the one-click unsubscribe link
 * (RFC 8058) that the `List-Unsubscribe` headers carry too.
 */
export function renderEmail(
  notifications: readonly Notification[],
  to: string,
  unsubscribeUrl: string | null,
): EmailMessage {
  const first = notifications[0];
  if (!first) throw new Error("renderEmail needs at least one notification");
  const headers: Record<string, string> = unsubscribeUrl
    ? { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    : {};
  const footer = footerFor(first, unsubscribeUrl);
  if (notifications.length === 1) {
    const { scope, title } = subjectOf(first);
    const subject = oneLine(`[${scope}] ${title}`, SUBJECT_LIMIT);
    return {
      to,
      subject,
      headers,
      text: `${singleText(first)}\n\n${footer.text}\n`,
      html: page(singleHtml(first), footer.html),
    };
  }
  const issues = new Set(notifications.map((n) => subjectOf(n).label)).size;
  const subject = oneLine(
    `[${first.organization.slug}] ${notifications.length} updates on ${issues} issue${issues === 1 ? "" : "s"}`,
    SUBJECT_LIMIT,
  );
  // A storm's digest stays readable: the newest entries, and how many more there were.
  const shown = notifications.slice(-DIGEST_ENTRIES);
  const more = notifications.length - shown.length;
  const andMore = more > 0 ? `…and ${more} earlier update${more === 1 ? "" : "s"}.` : "";
  const text = [andMore, ...shown.map((n) => digestLine(n))].filter(Boolean).join("\n\n");
  const html = [
    andMore ? `<p style="color:#555">${andMore}</p>` : "",
    ...shown.map((n) => `<div style="margin:0 0 16px">${digestHtml(n)}</div>`),
  ].join("");
  return { to, subject, headers, text: `${text}\n\n${footer.text}\n`, html: page(html, footer.html) };
}

function facts(n: Notification): string[] {
  return subjectOf(n).facts.map(([name, value]) => `${name}: ${value}`);
}

function stackLines(n: Notification): string[] {
  const event = n.event;
  if (!event) return [];
  const head = event.exception ? `${event.exception.type}: ${event.exception.value}` : event.message;
  const frames = event.frames.map(
    (f) =>
      `  at ${f.function ?? "?"} (${f.file ?? "?"}${f.line === null ? "" : `:${f.line}`})${f.inApp ? "" : " [lib]"}`,
  );
  return [oneLine(head, TITLE_LIMIT), ...frames];
}

function singleText(n: Notification): string {
  const subject = subjectOf(n);
  const lines = [
    n.headline,
    "",
    `${subject.label}: ${oneLine(subject.title, TITLE_LIMIT)}`,
    ...(subject.subtitle ? [subject.subtitle] : []),
    "",
    facts(n).join(" · "),
  ];
  const stack = stackLines(n);
  if (stack.length > 0) lines.push("", ...stack);
  if (n.comment) lines.push("", `Comment: ${n.comment.slice(0, COMMENT_LIMIT)}`);
  if (n.link) lines.push("", `Open in Faultline: ${n.link}`);
  return lines.join("\n");
}

function singleHtml(n: Notification): string {
  const subject = subjectOf(n);
  const title = escapeHtml(oneLine(subject.title, TITLE_LIMIT));
  const stack = stackLines(n);
  return [
    `<p style="margin:0 0 8px;color:#555">${escapeHtml(n.headline)}</p>`,
    `<h1 style="font-size:18px;margin:0 0 4px">${n.link ? `<a href="${escapeHtml(n.link)}">${title}</a>` : title}</h1>`,
    `<p style="margin:0 0 12px;color:#555">${escapeHtml(subject.label)}${subject.subtitle ? ` · ${escapeHtml(subject.subtitle)}` : ""}</p>`,
    `<p style="margin:0 0 12px">${facts(n).map(escapeHtml).join(" · ")}</p>`,
    stack.length > 0
      ? `<pre style="background:#f6f6f6;padding:8px;white-space:pre-wrap;font-size:12px">${escapeHtml(stack.join("\n"))}</pre>`
      : "",
    n.comment
      ? `<blockquote style="border-left:3px solid #ccc;margin:0 0 12px;padding-left:8px">${escapeHtml(n.comment.slice(0, COMMENT_LIMIT))}</blockquote>`
      : "",
    n.link ? `<p><a href="${escapeHtml(n.link)}">Open ${escapeHtml(subject.label)} in Faultline</a></p>` : "",
  ].join("");
}

function digestLine(n: Notification): string {
  const link = n.link ? `\n  ${n.link}` : "";
  const subject = subjectOf(n);
  return `${n.headline}\n  ${subject.label}: ${oneLine(subject.title, TITLE_LIMIT)}${link}`;
}

function digestHtml(n: Notification): string {
  const subject = subjectOf(n);
  const title = escapeHtml(`${subject.label}: ${oneLine(subject.title, TITLE_LIMIT)}`);
  return `<div style="color:#555">${escapeHtml(n.headline)}</div><div>${n.link ? `<a href="${escapeHtml(n.link)}">${title}</a>` : title}</div>`;
}

function footerFor(n: Notification, unsubscribeUrl: string | null): { text: string; html: string } {
  const why = `You receive this email because ${WHY[n.reason]}.`;
  if (!unsubscribeUrl)
    return { text: `--\n${why}`, html: `<p style="color:#888;font-size:12px">${escapeHtml(why)}</p>` };
  const off = `Turn off ${CATEGORY_NAMES[n.category]} emails`;
  return {
    text: `--\n${why}\n${off}: ${unsubscribeUrl}`,
    html: `<p style="color:#888;font-size:12px">${escapeHtml(why)} <a href="${escapeHtml(unsubscribeUrl)}">${off}</a>.</p>`,
  };
}

function page(body: string, footer: string): string {
  return `<!doctype html><html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#222">${body}<hr style="border:none;border-top:1px solid #ddd">${footer}</body></html>`;
}
