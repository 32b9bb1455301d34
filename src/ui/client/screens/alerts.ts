import { useState } from "preact/hooks";
import { enc, get } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import { Failure, Loading, Section, Time } from "../parts/common.js";
import type { Project } from "../types.js";
import { IssueRuleEditor } from "./rule-editor.js";

interface MetricRule {
  id: string;
  name: string;
  aggregate: string;
  query: string;
  timeWindow: number;
  status: number | string;
  projects: string[];
}
interface IssueRule {
  id: string;
  name: string;
  status: string;
  actionMatch: string;
  conditions: Array<{ id: string }>;
  frequency: number;
  actions?: RuleAction[];
}
interface RuleAction {
  id: string;
  targetType?: string;
  targetIdentifier?: string | null;
  provider?: string;
  webhookUrl?: string;
}

/** What a rule does when it fires, in words (a rule without actions fires the hooks and webhooks). */
function actionText(actions: RuleAction[] | undefined): string {
  if (!actions?.length) return "notifies service hooks and apps";
  return actions
    .map((a) =>
      a.id.endsWith("NotifyEmailAction")
        ? `emails ${a.targetType === "IssueOwners" ? "the issue's owners" : `${a.targetType?.toLowerCase()} ${a.targetIdentifier}`}`
        : a.id.endsWith("NotifyChatAction")
          ? `posts to ${a.provider} (${a.webhookUrl})`
          : "notifies service hooks and apps",
    )
    .join(", ");
}
interface Incident {
  id: string;
  identifier: string;
  status: number | string;
  dateStarted: string;
  dateClosed: string | null;
}

function Incidents({ org, rule }: { org: string; rule: string }) {
  const list = useAsync(
    () => get<Incident[]>(`/organizations/${enc(org)}/alert-rules/${enc(rule)}/incidents/`),
    [org, rule],
  );
  return html`<${Failure} error=${list.error} /><${Loading} when=${list.loading && !list.data} />
    ${list.data && !list.data.length ? html`<p class="muted">No incidents.</p>` : null}
    <ul class="plain">${(list.data ?? []).map(
      (
        i,
      ) => html`<li>#${i.identifier} <span class="badge">${String(i.status)}</span> started <${Time} iso=${i.dateStarted} />
      ${i.dateClosed ? html` · closed <${Time} iso=${i.dateClosed} />` : null}</li>`,
    )}</ul>`;
}

export function Alerts({ org }: { org: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const [saved, setSaved] = useState(0);
  const metric = useAsync(() => get<MetricRule[]>(`/organizations/${enc(org)}/alert-rules/`), [org]);
  const projects = useAsync(() => get<Project[]>(`/organizations/${enc(org)}/projects/`), [org]);
  const issueRules = useAsync(async () => {
    const list = projects.data ?? [];
    return (
      await Promise.all(
        list.map(async (p) =>
          (await get<IssueRule[]>(`/projects/${enc(org)}/${enc(p.slug)}/rules/`).catch(() => [])).map((rule) => ({
            ...rule,
            project: p.slug,
          })),
        ),
      )
    ).flat();
  }, [org, projects.data, saved]);
  return html`<h1>Alerts</h1>
    <${Section} title="Metric alert rules">
      <${Failure} error=${metric.error} /><${Loading} when=${metric.loading && !metric.data} />
      ${metric.data && !metric.data.length ? html`<p class="muted">No metric alert rules.</p>` : null}
      <ul class="plain">${(metric.data ?? []).map(
        (rule) => html`<li>
        <button class="link" aria-expanded=${open === rule.id} onClick=${() => setOpen(open === rule.id ? null : rule.id)}>${rule.name}</button>
        <span class="muted">${rule.aggregate} ${rule.query} · ${rule.timeWindow} min · ${rule.projects.join(", ")}</span>
        ${open === rule.id ? html`<${Incidents} org=${org} rule=${rule.id} />` : null}
      </li>`,
      )}</ul>
    </${Section}>
    <${Section} title="Issue alert rules">
      <${Failure} error=${issueRules.error} /><${Loading} when=${issueRules.loading && !issueRules.data} />
      ${issueRules.data && !issueRules.data.length ? html`<p class="muted">No issue alert rules.</p>` : null}
      <ul class="plain">${(issueRules.data ?? []).map(
        (rule) => html`<li><strong>${rule.name}</strong> <span class="badge">${rule.status}</span>
        <span class="muted">${rule.project} · ${rule.actionMatch} of ${rule.conditions.map((c) => c.id.split(".").pop()).join(", ")} · every ${rule.frequency} min · ${actionText(rule.actions)}</span></li>`,
      )}</ul>
    </${Section}>
    <${Section} title="New issue alert rule">
      ${
        projects.data?.length
          ? html`<${IssueRuleEditor} org=${org} projects=${projects.data} onSaved=${() => setSaved(saved + 1)} />`
          : html`<p class="muted">Create a project first.</p>`
      }
    </${Section}>`;
}
