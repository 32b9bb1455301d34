import { useState } from "preact/hooks";
import { enc, request } from "../api.js";
import { html } from "../html.js";
import { Section, Time } from "../parts/common.js";
import type { Activity, Issue } from "../types.js";

const WORDS: Record<string, string> = {
  note: "commented",
  set_resolved: "resolved the issue",
  set_unresolved: "unresolved the issue",
  set_ignored: "ignored the issue",
  set_regression: "marked a regression",
  set_escalating: "escalated",
  assigned: "assigned the issue",
  unassigned: "unassigned the issue",
  set_public: "shared the issue",
  set_private: "stopped sharing the issue",
  first_seen: "first seen",
};

function Line({ item }: { item: Activity }) {
  const who = item.user ? item.user.name || item.user.username : "Faultline";
  const text = typeof item.data.text === "string" ? item.data.text : null;
  return html`<li><strong>${who}</strong> ${WORDS[item.type] ?? item.type.replace(/_/g, " ")} <${Time} iso=${item.dateCreated} />
    ${text ? html`<blockquote>${text}</blockquote>` : null}</li>`;
}

export function ActivityView({ org, issue, onChange }: { org: string; issue: Issue; onChange(): void }) {
  const [text, setText] = useState("");
  const [notice, setNotice] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await request("POST", `/organizations/${enc(org)}/issues/${enc(issue.id)}/comments/`, { text });
      setText("");
      setNotice("Comment added.");
      onChange();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  return html`<${Section} title="Activity">
    <form onSubmit=${submit}>
      <label for="comment">Comment</label>
      <textarea id="comment" rows="3" value=${text} required maxlength="10000" onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
      <div class="row"><button>Add comment</button><span class="muted" role="status">${notice}</span></div>
    </form>
    <ul class="activity">${(issue.activity ?? []).map((item) => html`<${Line} item=${item} />`)}</ul>
  </${Section}>`;
}
