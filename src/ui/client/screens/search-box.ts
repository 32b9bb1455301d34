import { useState } from "preact/hooks";
import { html } from "../html.js";

const TOKENS = [
  "is:unresolved",
  "is:resolved",
  "is:ignored",
  "is:assigned",
  "is:unassigned",
  "is:new",
  "is:regressed",
  "is:escalating",
  "assigned:me",
  "bookmarks:me",
  "level:error",
  "level:warning",
  "level:fatal",
  "environment:",
  "release:",
  "firstSeen:-24h",
  "lastSeen:-1h",
  "timesSeen:>10",
  "userCount:>5",
  "has:",
  "!",
];

/**
 * The search input with suggestions of the search syntax: a datalist whose options complete the
 * token being typed (the browser's own, accessible, suggestion list).
 */
export function SearchBox({ value }: { value: string }) {
  const [text, setText] = useState(value);
  const head = text.includes(" ") ? text.slice(0, text.lastIndexOf(" ") + 1) : "";
  const last = text.slice(head.length);
  const options = TOKENS.filter((token) => token.startsWith(last) && token !== last).slice(0, 12);
  return html`<label class="grow">Search
    <input id="search" name="query" type="search" value=${text} list="search-suggestions" autocomplete="off" spellcheck=${false}
      onInput=${(e: Event) => setText((e.target as HTMLInputElement).value)} placeholder="is:unresolved level:error TypeError" />
    <datalist id="search-suggestions">${options.map((token) => html`<option value=${head + token} />`)}</datalist>
  </label>`;
}
