import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import type { CronMonitor, CronMonitorEnvironment, ScheduleValue } from "../tables.js";
import type { MonitorSettings } from "./schemas.js";

/** A monitor row's settings. */
export function settingsOf(monitor: CronMonitor): MonitorSettings {
  return {
    scheduleType: monitor.schedule_type,
    schedule: monitor.schedule,
    checkinMargin: monitor.checkin_margin,
    maxRuntime: monitor.max_runtime,
    timezone: monitor.timezone,
    failureIssueThreshold: monitor.failure_issue_threshold,
    recoveryThreshold: monitor.recovery_threshold,
  };
}

/** The columns of a monitor's settings. */
export function settingsColumns(settings: MonitorSettings) {
  return {
    schedule_type: settings.scheduleType,
    schedule: JSON.stringify(settings.schedule satisfies ScheduleValue),
    checkin_margin: settings.checkinMargin,
    max_runtime: settings.maxRuntime,
    timezone: settings.timezone,
    failure_issue_threshold: settings.failureIssueThreshold,
    recovery_threshold: settings.recoveryThreshold,
  };
}

/** Monitors, always by organization. */
export class MonitorRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** By slug, or by Sentry's id (the guid) as `{monitor_id_or_slug}` allows. */
  find(organizationId: number, ref: string, db: Kysely<Database> = this.db(), forUpdate = false) {
    const query = db
      .selectFrom("cron_monitors")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where((eb) => eb.or([eb("slug", "=", ref), eb("guid", "=", ref)]));
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  }

  /** A page of the organization's monitors, newest first; `projectIds` narrows it when given. */
  list(organizationId: number, bound: KeysetBound, projectIds: number[] | null): Promise<CronMonitor[]> {
    let query = this.db().selectFrom("cron_monitors").selectAll().where("organization_id", "=", organizationId);
    if (projectIds) query = query.where("project_id", "in", projectIds.length > 0 ? projectIds : [-1]);
    const condition = keysetCondition(bound, "date_created", "id");
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  environments(monitorIds: number[]): Promise<CronMonitorEnvironment[]> {
    if (monitorIds.length === 0) return Promise.resolve([]);
    return this.db()
      .selectFrom("cron_monitor_environments")
      .selectAll()
      .where("monitor_id", "in", monitorIds)
      .orderBy("name")
      .execute();
  }

  /** A page of the monitor's check-ins, newest first, with their environment's name. */
  checkIns(monitorId: number, bound: KeysetBound, environment: string | undefined) {
    let query = this.db()
      .selectFrom("cron_check_ins as c")
      .innerJoin("cron_monitor_environments as e", "e.id", "c.environment_id")
      .selectAll("c")
      .select("e.name as environment")
      .where("c.monitor_id", "=", monitorId);
    if (environment !== undefined) query = query.where("e.name", "=", environment);
    const condition = keysetCondition(bound, "c.date_created", "c.id");
    if (condition) query = query.where(condition);
    return query.orderBy("c.date_created", bound.order).orderBy("c.id", bound.order).limit(bound.limit).execute();
  }

  projects(organizationId: number, projectIds: number[]) {
    if (projectIds.length === 0) return Promise.resolve([]);
    return this.db()
      .selectFrom("projects")
      .select(["id", "slug", "name", "platform"])
      .where("organization_id", "=", organizationId)
      .where("id", "in", projectIds)
      .execute();
  }
}
