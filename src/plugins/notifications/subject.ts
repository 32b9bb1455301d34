import type { Notification } from "./notifier.js";

/** What any channel shows of a notification's subject: an issue, or a metric alert's incident. */
export interface NotificationSubject {
  /** `WEB-12`, `Incident 3`. */
  label: string;
  title: string;
  /** The issue's culprit, or the incident's measurement. */
  subtitle: string;
  /** An event level (`error`): an incident's status is shown as the level of its severity. */
  level: string;
  /** What a subject line starts with: the project, or the organization for an incident. */
  scope: string;
  facts: Array<[string, string]>;
  /** When it last happened. */
  timestamp: string;
}

const INCIDENT_LEVELS = { open: "error", critical: "fatal", warning: "warning", resolved: "info" } as const;

export function subjectOf(n: Notification): NotificationSubject {
  if (n.incident) {
    const { incident } = n;
    return {
      label: `Incident ${incident.identifier}`,
      title: `${incident.status === "resolved" ? "Resolved" : incident.status === "warning" ? "Warning" : "Critical"}: ${incident.rule.name}`,
      subtitle: incident.description,
      level: INCIDENT_LEVELS[incident.status],
      scope: n.organization.slug,
      facts: [
        ["Status", incident.status],
        ["Projects", incident.projects.join(", ") || "—"],
        ["Alert rule", incident.rule.name],
      ],
      timestamp: incident.dateDetected,
    };
  }
  const issue = n.issue;
  if (!issue) throw new Error("a notification needs an issue or an incident");
  return {
    label: issue.shortId,
    title: issue.title,
    subtitle: issue.culprit,
    level: issue.level,
    scope: issue.project.slug,
    facts: [
      ["Project", issue.project.slug],
      ["Level", issue.level],
      ["Environment", n.event?.environment ?? "—"],
      ["Release", n.event?.release ?? "—"],
      ["Events", String(issue.count)],
      ["Users", String(issue.userCount)],
    ],
    timestamp: issue.lastSeen,
  };
}
