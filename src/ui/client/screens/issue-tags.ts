import { enc, get } from "../api.js";
import { count } from "../format.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading } from "../parts/common.js";
import type { TagKey } from "../types.js";

/** Values shown per key; the API sends up to 9 (Sentry's sidebar), five keep the section short. */
const SHOWN = 5;

const share = (part: number, total: number) => {
  const percent = total > 0 ? (part / total) * 100 : 0;
  return percent > 0 && percent < 1 ? "<1%" : `${Math.round(percent)}%`;
};

/**
 * The issue's tag distributions (every event, not only the latest): per key, its top values with
 * their share as a bar. The numbers are text; the bars are decoration (SVG attributes, not
 * inline styles, which the CSP forbids).
 */
export function TagDistribution({ org, id, lastSeen }: { org: string; id: string; lastSeen: string }) {
  // Reloaded when the issue's lastSeen moves: a new event may change the shares.
  const tags = useAsync(() => get<TagKey[]>(`/organizations/${enc(org)}/issues/${enc(id)}/tags/`), [org, id, lastSeen]);
  const keys = tags.data;
  return html`<section class="card" aria-labelledby="tag-distribution">
    <h2 id="tag-distribution">Tag distribution</h2>
    <${Failure} error=${tags.error} /><${Loading} when=${tags.loading && !keys} />
    ${keys && !keys.length ? html`<p class="muted">No tags.</p>` : null}
    <div class="tag-keys">
      ${keys?.map(
        (key) => html`<div class="tag-key">
          <h3>${key.key} <span class="muted">${count(key.uniqueValues)} ${key.uniqueValues === 1 ? "value" : "values"}</span></h3>
          <ul class="tag-values">
            ${key.topValues.slice(0, SHOWN).map(
              (value) => html`<li>
                <span class="tag-value">${value.value}</span>
                <span class="tag-share" title=${`${value.count} of ${key.totalValues} events`}>${share(value.count, key.totalValues)}</span>
                <svg class="tag-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
                  <rect width="100" height="6" class="track" /><rect width=${key.totalValues > 0 ? (value.count / key.totalValues) * 100 : 0} height="6" />
                </svg>
              </li>`,
            )}
          </ul>
        </div>`,
      )}
    </div>
  </section>`;
}
