import type { Project } from "../../../db/schema.js";
import type { IssueAlertRule } from "../tables.js";
import { isoDate } from "../../../http/format.js";
import { maskActions } from "../webhook-urls.js";

/** A rule as the API shows it (Sentry's field names; `projects` holds the one project's slug). */
export function serializeIssueRule(rule: IssueAlertRule, project: Pick<Project, "slug">) {
  return {
    id: String(rule.id),
    name: rule.name,
    actionMatch: rule.action_match,
    conditions: rule.conditions,
    filters: rule.filters,
    frequency: rule.frequency,
    environment: rule.environment,
    status: rule.status,
    projects: [project.slug],
    dateCreated: isoDate(rule.date_created),
    // Sentry's fields: filters match as the conditions do; never snoozed. A chat webhook URL is a
    // credential: shown masked, and a PUT sending the masked form back keeps the stored one.
    filterMatch: rule.action_match,
    actions: maskActions(rule.actions ?? []),
    snooze: false,
  };
}
