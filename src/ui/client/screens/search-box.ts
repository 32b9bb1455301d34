import { useState } from "preact/hooks";
import { enc, get } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";

/** What `GET /organizations/{org}/issue-search-keys/` answers: the parser's own key list, and the organization's tags. */
interface SearchKeys {
  keys: Array<{ key: string; aliases: string[]; description: string; examples: string[] }>;
  tags: string[];
}

/**
 * One request per organization for the page's life: the box is mounted again with every search
 * (its `key` is the query), and the keys do not change between searches (tag keys new since the
 * page loaded appear after a reload). A failed request
 * is forgotten, so the next mount asks again.
 */
const vocabularies = new Map<string, Promise<SearchKeys>>();
function vocabularyOf(org: string): Promise<SearchKeys> {
  let pending = vocabularies.get(org);
  if (!pending) {
    pending = get<SearchKeys>(`/organizations/${enc(org)}/issue-search-keys/`);
    vocabularies.set(org, pending);
    pending.catch(() => vocabularies.delete(org));
  }
  return pending;
}

/**
 * The search input with suggestions of the search syntax: a datalist whose options complete the
 * token being typed (the browser's own, accessible, suggestion list), and a help panel listing
 * every key. Both come from the server's definition of the syntax, so they never drift from it.
 */
export function SearchBox({ org, value }: { org: string; value: string }) {
  const [text, setText] = useState(value);
  const vocabulary = useAsync(() => vocabularyOf(org), [org]);
  const head = text.includes(" ") ? text.slice(0, text.lastIndexOf(" ") + 1) : "";
  const last = text.slice(head.length);
  const tokens = suggestions(vocabulary.data);
  const options = tokens.filter((token) => token.startsWith(last) && token !== last).slice(0, 12);
  return html`<label class="grow">Search
    <input id="search" name="query" type="search" value=${text} list="search-suggestions" autocomplete="off" spellcheck=${false}
      onInput=${(e: Event) => setText((e.target as HTMLInputElement).value)} placeholder="is:unresolved level:error TypeError" />
    <datalist id="search-suggestions">${options.map((token) => html`<option value=${head + token} />`)}</datalist>
  </label>
  ${
    vocabulary.data &&
    html`<details class="search-help"><summary>Search syntax</summary>
    <p><code>key:value</code>, <code>!key:value</code>, <code>key:[a, b]</code>, <code>"quoted value"</code>, <code>*</code> wildcards, free text. The full grammar is in the package's <code>docs/search.md</code>.</p>
    <dl>${vocabulary.data.keys.map((key) => html`<dt><code>${key.key}:</code>${key.aliases.map((alias) => html` <code>${alias}:</code>`)}</dt><dd>${key.description}</dd>`)}</dl>
    ${vocabulary.data.tags.length > 0 && html`<p>Tags in this organization: ${vocabulary.data.tags.map((tag) => html`<code>${tag}:</code> `)}</p>`}
  </details>`
  }`;
}

function suggestions(vocabulary: SearchKeys | undefined): string[] {
  if (!vocabulary) return ["is:unresolved", "!"];
  const builtIn = vocabulary.keys.flatMap((key) => key.examples);
  const known = new Set(vocabulary.keys.map((key) => key.key));
  return [...builtIn, ...vocabulary.tags.filter((tag) => !known.has(tag)).map((tag) => `${tag}:`), "!"];
}
