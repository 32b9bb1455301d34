import { useState } from "preact/hooks";
import { enc, request } from "../api.js";
import { html } from "../html.js";
import { href } from "../router.js";
import type { Issue } from "../types.js";

const IGNORE: Array<[string, string, Record<string, unknown>]> = [
  ["forever", "forever", {}],
  ["30m", "for 30 minutes", { ignoreDuration: 30 }],
  ["1d", "for 24 hours", { ignoreDuration: 1440 }],
  ["100", "until 100 more events", { ignoreCount: 100 }],
];

/** Why the viewer follows an issue, as the Subscribe control says it. */
const SUBSCRIBED_BECAUSE: Record<string, string> = {
  assigned: "you are assigned",
  commented: "you commented",
  status_change: "you changed its status",
  explicit: "you subscribed",
};

/** Resolve/unresolve, ignore (for a while or a count), assign, bookmark, subscribe and share. */
export function IssueActions({ org, issue, onChange }: { org: string; issue: Issue; onChange(): void }) {
  const [notice, setNotice] = useState("");
  const [assignee, setAssignee] = useState(issue.assignedTo ?? "");
  const [ignore, setIgnore] = useState("forever");
  const update = async (body: Record<string, unknown>, done: string) => {
    try {
      await request("PUT", `/organizations/${enc(org)}/issues/${enc(issue.id)}/`, body);
      setNotice(done);
      onChange();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  const resolved = issue.status === "resolved";
  return html`<div class="actions card" role="group" aria-label="Issue actions">
    <button class="primary" onClick=${() => update({ status: resolved ? "unresolved" : "resolved" }, resolved ? "Unresolved." : "Resolved.")}>${resolved ? "Unresolve" : "Resolve"}</button>
    <span class="row">
      <label class="sr-only" for="ignore-how">Ignore how long</label>
      <select id="ignore-how" value=${ignore} onChange=${(e: Event) => setIgnore((e.target as HTMLSelectElement).value)}>
        ${IGNORE.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select>
      <button onClick=${() => update({ status: "ignored", ...(IGNORE.find(([v]) => v === ignore)?.[2] ?? {}) }, "Ignored.")}>Ignore</button>
    </span>
    <form class="row" onSubmit=${(e: Event) => {
      e.preventDefault();
      void update(
        { assignedTo: assignee.trim() || null },
        assignee.trim() ? `Assigned to ${assignee.trim()}.` : "Unassigned.",
      );
    }}>
      <label class="sr-only" for="assignee">Assignee (username, email or #team)</label>
      <input id="assignee" value=${assignee} placeholder="username or #team" size="14" onInput=${(e: Event) => setAssignee((e.target as HTMLInputElement).value)} />
      <button>Assign</button>
    </form>
    <button aria-pressed=${issue.isBookmarked} onClick=${() => update({ isBookmarked: !issue.isBookmarked }, issue.isBookmarked ? "Bookmark removed." : "Bookmarked.")}>Bookmark</button>
    <button aria-pressed=${issue.isSubscribed} title="Workflow notifications: comments, resolution, regression" onClick=${() => update({ isSubscribed: !issue.isSubscribed }, issue.isSubscribed ? "Unsubscribed: no more notifications about this issue." : "Subscribed: you will be told about comments, resolution and regressions.")}>${issue.isSubscribed ? "Unsubscribe" : "Subscribe"}</button>
    ${issue.isSubscribed && issue.subscriptionDetails ? html`<span class="muted subscription-reason">Subscribed because ${SUBSCRIBED_BECAUSE[issue.subscriptionDetails.reason] ?? issue.subscriptionDetails.reason}</span>` : null}
    <button aria-pressed=${issue.isPublic} onClick=${() => update({ isPublic: !issue.isPublic }, issue.isPublic ? "No longer shared." : "Shared publicly.")}>Share</button>
    ${issue.isPublic && issue.shareId ? html`<a class="share-link" href=${href(`/share/issue/${enc(issue.shareId)}/`)}>Public link</a>` : null}
    <span class="muted" role="status">${notice}</span>
  </div>`;
}
