import type { Notification } from "./notifier.js";

/** What any channel shows of a notification's subject: an issue, or a notice (an incident, a quota). */
export interface NotificationSubject {
  /** `WEB-12`, `Incident 3`. */
  label: string;
  title: string;
  /** The issue's culprit, or the notice's description. */
  subtitle: string;
  /** An event level (`error`). */
  level: string;
  /** What a subject line starts with: the project, or the organization for a notice. */
  scope: string;
  facts: Array<[string, string]>;
  /** When it last happened. */
  timestamp: string;
}

export function subjectOf(n: Notification): NotificationSubject {
  if (n.notice) {
    const { notice } = n;
    return {
      label: notice.label,
      title: notice.title,
      subtitle: notice.description,
      level: notice.level,
      scope: n.organization.slug,
      facts: notice.facts,
      timestamp: notice.timestamp,
    };
  }
  const issue = n.issue;
  if (!issue) throw new Error("a notification needs an issue or a notice");
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
