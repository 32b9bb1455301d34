import type { MetricAlertIncident, MetricAlertRule } from "../tables.js";
import { isoDate } from "../../../http/format.js";
import { maskActions } from "../webhook-urls.js";
import type { IncidentActivity } from "./repository.js";

/** A metric alert rule as the API shows it; `slugs` maps the rule's project ids to slugs. */
export function serializeMetricRule(rule: MetricAlertRule, slugs: ReadonlyMap<number, string>) {
  return {
    id: String(rule.id),
    name: rule.name,
    projects: rule.project_ids.flatMap((id) => slugs.get(id) ?? []),
    query: rule.query,
    aggregate: rule.aggregate,
    timeWindow: rule.time_window,
    thresholdType: rule.threshold_type,
    triggers: rule.triggers.map((trigger) => ({ ...trigger, actions: maskActions(trigger.actions ?? []) })),
    resolveThreshold: rule.resolve_threshold,
    status: rule.status,
    dateCreated: isoDate(rule.date_created),
    // Sentry's fields: the organization, when last changed (Faultline keeps the creation time
    // only) and who created it (not recorded: null, as Sentry shows for rules without a creator).
    organizationId: String(rule.organization_id),
    dateModified: isoDate(rule.date_created),
    createdBy: null,
  };
}

/** An incident with its transitions, oldest first. */
export function serializeIncident(
  incident: MetricAlertIncident,
  rule: MetricAlertRule,
  activities: readonly IncidentActivity[],
) {
  return {
    id: String(incident.id),
    identifier: String(incident.identifier),
    title: rule.name,
    status: incident.status,
    alertRule: { id: String(rule.id), name: rule.name },
    dateStarted: isoDate(incident.date_started),
    dateDetected: isoDate(incident.date_detected),
    dateClosed: incident.date_closed ? isoDate(incident.date_closed) : null,
    activities: activities.map((activity) => ({
      type: activity.type,
      value: activity.value,
      dateCreated: isoDate(activity.date_created),
    })),
  };
}
