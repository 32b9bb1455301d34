import type { MetricAlertIncident, MetricAlertRule } from "../tables.js";
import { isoDate } from "../../../http/format.js";
import type { IncidentStep } from "./evaluate.js";

export interface MetricAlertContext {
  rule: MetricAlertRule;
  incident: MetricAlertIncident;
  step: IncidentStep;
  value: number;
  projects: string[];
  /** API root (absolute with a public URL) and the organization's slug, for `web_url`. */
  root: string;
  organizationSlug: string;
}

const TITLES: Record<IncidentStep, string> = {
  open: "Open",
  warning: "Warning",
  critical: "Critical",
  resolved: "Resolved",
};

/** "5 minutes", "1 hour", "1 day". */
export function windowText(minutes: number): string {
  const [amount, unit] =
    minutes % 1440 === 0 ? [minutes / 1440, "day"] : minutes % 60 === 0 ? [minutes / 60, "hour"] : [minutes, "minute"];
  return `${amount} ${unit}${amount === 1 ? "" : "s"}`;
}

/**
 * `data` of `metric_alert.*` (docs/alerts.md, "Metric alert rules", "Payload"). `status` is the
 * transition this delivery reports (`open`, `warning`, `critical`, `resolved`); dates are the
 * incident's.
 */
export function metricAlertData({ rule, incident, step, value, projects, root, organizationSlug }: MetricAlertContext) {
  const what = rule.aggregate === "count()" ? (value === 1 ? "event" : "events") : value === 1 ? "user" : "users";
  return {
    metric_alert: {
      id: String(incident.id),
      identifier: String(incident.identifier),
      title: rule.name,
      status: step,
      alert_rule: { id: String(rule.id), name: rule.name },
      projects,
      date_started: isoDate(incident.date_started),
      date_detected: isoDate(incident.date_detected),
      date_closed: incident.date_closed ? isoDate(incident.date_closed) : null,
    },
    description_title: `${TITLES[step]}: ${rule.name}`,
    description_text: `${value} ${what} in the last ${windowText(rule.time_window)}${rule.query ? ` matching "${rule.query}"` : ""}`,
    web_url: `${root}/api/0/organizations/${organizationSlug}/alert-rules/${rule.id}/incidents/`,
  };
}
