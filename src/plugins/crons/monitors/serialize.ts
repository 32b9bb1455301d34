import type { CronCheckIn, CronMonitor, CronMonitorEnvironment } from "../tables.js";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export interface ProjectSummary {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
}

/** Sentry's `config` of a monitor. */
export function serializeConfig(monitor: CronMonitor) {
  return {
    schedule_type: monitor.schedule_type,
    schedule: monitor.schedule,
    checkin_margin: monitor.checkin_margin,
    max_runtime: monitor.max_runtime,
    timezone: monitor.timezone,
    failure_issue_threshold: monitor.failure_issue_threshold,
    recovery_threshold: monitor.recovery_threshold,
    alert_rule_id: null,
  };
}

function serializeEnvironment(environment: CronMonitorEnvironment) {
  return {
    name: environment.name,
    status: environment.status,
    isMuted: false,
    dateCreated: iso(environment.date_created),
    lastCheckIn: iso(environment.last_checkin),
    nextCheckIn: iso(environment.next_checkin),
    nextCheckInLatest: iso(environment.next_checkin_latest),
    activeIncident: environment.issue_id === null ? null : { issueId: String(environment.issue_id) },
  };
}

/** Sentry's monitor shape. */
export function serializeMonitor(
  monitor: CronMonitor,
  environments: readonly CronMonitorEnvironment[],
  project: ProjectSummary | undefined,
) {
  return {
    id: monitor.guid,
    slug: monitor.slug,
    name: monitor.name,
    status: monitor.status,
    type: "cron_job",
    isMuted: false,
    config: serializeConfig(monitor),
    dateCreated: monitor.date_created.toISOString(),
    project: project
      ? { id: String(project.id), slug: project.slug, name: project.name, platform: project.platform }
      : null,
    environments: environments.map(serializeEnvironment),
    owner: null,
  };
}

/** Sentry's check-in shape; `duration` in milliseconds. */
export function serializeCheckIn(checkIn: CronCheckIn & { environment: string }) {
  return {
    id: checkIn.guid,
    environment: checkIn.environment,
    status: checkIn.status,
    duration: checkIn.duration,
    dateCreated: checkIn.date_created.toISOString(),
    dateAdded: checkIn.date_created.toISOString(),
    dateUpdated: checkIn.date_updated.toISOString(),
    expectedTime: iso(checkIn.expected_time),
  };
}
