import { useState } from "preact/hooks";
import { enc, get, request } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Section } from "../parts/common.js";

interface Setting {
  category: string;
  channel: string;
  project: string | null;
  enabled: boolean;
}
interface Settings {
  channels: string[];
  categories: string[];
  settings: Setting[];
  defaults: Setting[];
}

const CATEGORY_LABELS: Record<string, [string, string]> = {
  alerts: ["Alerts", "when an alert rule that names you fires, or a metric alert changes"],
  workflow: ["Workflow", "issues you follow: assigned to you, comments, resolution, regressions, snoozes ending"],
};

/** Whether a category is on for every project: the user's choice, else the organization's, else on. */
function enabledFor(data: Settings, category: string, channel: string): boolean {
  const pick = (list: Setting[]) =>
    list.find((s) => s.category === category && s.channel === channel && s.project === null)?.enabled;
  return pick(data.settings) ?? pick(data.defaults) ?? true;
}

/** The viewer's notification settings in this organization: each category on or off per channel, for every project. */
export function NotificationSettings({ org }: { org: string }) {
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState("");
  const path = `/organizations/${enc(org)}/notification-settings/`;
  const settings = useAsync(() => get<Settings>(path), [org, version]);
  const set = async (category: string, channel: string, enabled: boolean) => {
    try {
      await request("PUT", path, { settings: [{ category, channel, project: null, enabled }] });
      setNotice(`${CATEGORY_LABELS[category]?.[0] ?? category} ${channel} notifications ${enabled ? "on" : "off"}.`);
      setVersion(version + 1);
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  const data = settings.data;
  const projectChoices = (data?.settings ?? []).filter((s) => s.project !== null);
  return html`<h1>Notifications</h1>
    <${Section} title="Your notifications">
      <${Failure} error=${settings.error} /><${Loading} when=${settings.loading && !data} />
      ${data && !data.channels.length ? html`<p class="muted">No channel reaches people yet: the host has not configured email.</p>` : null}
      ${
        data
          ? html`<table class="settings">
            <thead><tr><th scope="col">Category</th>${data.channels.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
            <tbody>${data.categories.map(
              (category) => html`<tr>
                <th scope="row">${CATEGORY_LABELS[category]?.[0] ?? category}<br /><span class="muted">${CATEGORY_LABELS[category]?.[1] ?? ""}</span></th>
                ${data.channels.map((channel) => {
                  const on = enabledFor(data, category, channel);
                  return html`<td><label><input type="checkbox" checked=${on} onChange=${() => set(category, channel, !on)} /> <span class="sr-only">${category} by ${channel}</span>${on ? "On" : "Off"}</label></td>`;
                })}
              </tr>`,
            )}</tbody>
          </table>`
          : null
      }
      ${
        projectChoices.length
          ? html`<p class="muted">Per project: ${projectChoices.map((s) => `${s.project} ${s.category} ${s.channel} ${s.enabled ? "on" : "off"}`).join("; ")}.</p>`
          : null
      }
      <p class="muted" role="status">${notice}</p>
    </${Section}>`;
}
