import type { ColumnType, Generated, Selectable } from "kysely";
import type { Int8, Int8Id, Json, Timestamp } from "../../db/schema.js";

/** A crontab (`"0 * * * *"`) or an interval (`[1, "hour"]`), as Sentry's `config.schedule` has them. */
export type ScheduleValue = string | [number, IntervalUnit];
export type IntervalUnit = "minute" | "hour" | "day" | "week" | "month" | "year";

type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;

export interface CronMonitorsTable {
  id: Generated<number>;
  /** Sentry's monitor id (a UUID). */
  guid: string;
  organization_id: number;
  project_id: number;
  slug: string;
  name: string;
  /** `disabled` monitors keep their check-ins but are never marked missed or timed out. */
  status: "active" | "disabled";
  schedule_type: "crontab" | "interval";
  schedule: Json<ScheduleValue>;
  /** Minutes after the expected time before a check-in is missed. */
  checkin_margin: number;
  /** Minutes an `in_progress` check-in may last before it times out. */
  max_runtime: number;
  timezone: string;
  failure_issue_threshold: number;
  recovery_threshold: number;
  date_created: Timestamp;
}

/** A monitor's state in one environment: created by its first check-in there. */
export interface CronMonitorEnvironmentsTable {
  id: Generated<number>;
  monitor_id: number;
  organization_id: number;
  name: string;
  /** `active` until the first finished check-in, then `ok` or `error` (missed, timeout, error). */
  status: "active" | "ok" | "error";
  last_checkin: NullableTimestamp;
  /** When the next check-in is expected. */
  next_checkin: NullableTimestamp;
  /** `next_checkin` plus the margin: the worker marks the check-in missed after this. */
  next_checkin_latest: NullableTimestamp;
  /** Consecutive failed (error, missed, timeout) and ok check-ins: the issue thresholds count these. */
  failures: number;
  successes: number;
  /** The open monitor issue, while one is. */
  issue_id: Int8 | null;
  date_created: Timestamp;
}

export type CheckInStatus = "in_progress" | "ok" | "error" | "missed" | "timeout";

export interface CronCheckInsTable {
  id: Int8Id;
  /** The SDK's `check_in_id` (32 hex), or one made for a check-in that had none. */
  guid: string;
  monitor_id: number;
  environment_id: number;
  organization_id: number;
  status: CheckInStatus;
  /** Milliseconds, when known. */
  duration: number | null;
  expected_time: NullableTimestamp;
  /** When an `in_progress` check-in times out. */
  timeout_at: NullableTimestamp;
  date_created: Timestamp;
  date_updated: Timestamp;
}

export type CronMonitor = Selectable<CronMonitorsTable>;
export type CronMonitorEnvironment = Selectable<CronMonitorEnvironmentsTable>;
export type CronCheckIn = Selectable<CronCheckInsTable>;

declare module "../../db/schema.js" {
  /** The crons plugin's tables. */
  interface Database {
    cron_monitors: CronMonitorsTable;
    cron_monitor_environments: CronMonitorEnvironmentsTable;
    cron_check_ins: CronCheckInsTable;
  }
}
