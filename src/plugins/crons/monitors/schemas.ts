import { z } from "zod";
import { fieldErrors } from "../../../http/errors.js";
import { CrontabError, isTimeZone, nextRun, parseCrontab } from "../schedule/crontab.js";
import type { IntervalUnit, ScheduleValue } from "../tables.js";

export const INTERVAL_UNITS = ["minute", "hour", "day", "week", "month", "year"] as const;

/** Sentry's defaults for what a config leaves out. */
export const DEFAULTS = {
  checkinMargin: 1,
  maxRuntime: 30,
  timezone: "UTC",
  failureIssueThreshold: 1,
  recoveryThreshold: 1,
} as const;

/** A monitor's effective settings, defaults applied. */
export interface MonitorSettings {
  scheduleType: "crontab" | "interval";
  schedule: ScheduleValue;
  checkinMargin: number;
  maxRuntime: number;
  timezone: string;
  failureIssueThreshold: number;
  recoveryThreshold: number;
}

/** Minutes: Sentry's bounds (28 days). */
const minutes = z.number().int().min(1).max(40_320);
const threshold = z.number().int().min(1).max(720);

/** The settings shared by the envelope's `monitor_config` and the API's `config`, both snake_case. */
const limits = {
  checkin_margin: minutes.nullish(),
  max_runtime: minutes.nullish(),
  timezone: z.string().max(64).nullish(),
  failure_issue_threshold: threshold.nullish(),
  recovery_threshold: threshold.nullish(),
};

export const SLUG_PATTERN = /^[a-z0-9_-]+$/;
const slug = z.string().min(1).max(50).regex(SLUG_PATTERN, "must be lowercase letters, numbers, - or _");

/** Sentry's slug of a name (`Nightly Backup` → `nightly-backup`). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9_\s-]/g, "")
    .trim()
    .replace(/[\s-]+/g, "-")
    .slice(0, 50);
}

/** Why a schedule cannot be used, or null: a crontab that parses and runs, a zone `Intl` knows. */
function scheduleProblem(settings: Pick<MonitorSettings, "scheduleType" | "schedule">): string | null {
  if (settings.scheduleType === "interval") {
    return Array.isArray(settings.schedule) ? null : 'an interval schedule is [count, unit], e.g. [1, "hour"]';
  }
  if (typeof settings.schedule !== "string") return 'a crontab schedule is a string, e.g. "0 * * * *"';
  try {
    const crontab = parseCrontab(settings.schedule);
    return nextRun(crontab, new Date(0), "UTC") ? null : "the crontab never runs";
  } catch (error) {
    if (error instanceof CrontabError) return `invalid crontab: ${error.message}`;
    throw error;
  }
}

/** Throws a 400 naming the field (`config.schedule`, `config.timezone`) when the settings cannot be used. */
export function requireUsable(settings: MonitorSettings, prefix: string): void {
  const schedule = scheduleProblem(settings);
  if (schedule) throw fieldErrors({ [`${prefix}schedule`]: [schedule] });
  if (!isTimeZone(settings.timezone))
    throw fieldErrors({ [`${prefix}timezone`]: [`unknown time zone "${settings.timezone}"`] });
}

// --- The envelope's check-in item ---

const envelopeSchedule = z.discriminatedUnion("type", [
  z.object({ type: z.literal("crontab"), value: z.string().max(100) }),
  z.object({
    type: z.literal("interval"),
    value: z.number().int().positive().max(100_000),
    unit: z.enum(INTERVAL_UNITS),
  }),
]);

const envelopeMonitorConfig = z.object({ schedule: envelopeSchedule, ...limits });

/** A `check_in` envelope item (docs/crons.md, "Check-ins"). */
export const checkInItem = z.object({
  check_in_id: z
    .string()
    .regex(/^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/)
    .nullish(),
  monitor_slug: z.string().min(1).max(128),
  status: z.enum(["in_progress", "ok", "error"]),
  /** Seconds. */
  duration: z.number().nonnegative().max(1e9).nullish(),
  environment: z.string().min(1).max(64).nullish(),
  monitor_config: envelopeMonitorConfig.nullish(),
});
export type CheckInItem = z.output<typeof checkInItem>;

function withDefaults(
  scheduleType: MonitorSettings["scheduleType"],
  schedule: ScheduleValue,
  config: Partial<Record<keyof typeof limits, number | string | null | undefined>>,
): MonitorSettings {
  return {
    scheduleType,
    schedule,
    checkinMargin: (config.checkin_margin as number | null | undefined) ?? DEFAULTS.checkinMargin,
    maxRuntime: (config.max_runtime as number | null | undefined) ?? DEFAULTS.maxRuntime,
    timezone: (config.timezone as string | null | undefined) ?? DEFAULTS.timezone,
    failureIssueThreshold:
      (config.failure_issue_threshold as number | null | undefined) ?? DEFAULTS.failureIssueThreshold,
    recoveryThreshold: (config.recovery_threshold as number | null | undefined) ?? DEFAULTS.recoveryThreshold,
  };
}

/** The settings an SDK's `monitor_config` describes. */
export function settingsFromEnvelope(config: NonNullable<CheckInItem["monitor_config"]>): MonitorSettings {
  const { schedule } = config;
  return schedule.type === "crontab"
    ? withDefaults("crontab", schedule.value, config)
    : withDefaults("interval", [schedule.value, schedule.unit], config);
}

// --- The monitor API (Sentry's shapes) ---

const apiSchedule = z.union([
  z.string().max(100),
  z.tuple([z.number().int().positive().max(100_000), z.enum(INTERVAL_UNITS)]),
]);

const apiConfig = z.object({ schedule_type: z.enum(["crontab", "interval"]), schedule: apiSchedule, ...limits });

export const createMonitorBody = z.object({
  name: z.string().trim().min(1).max(128),
  slug: slug.optional(),
  /** The project's slug or id. */
  project: z.union([z.string().min(1), z.number().int()]),
  type: z.literal("cron_job").optional(),
  status: z.enum(["active", "disabled"]).optional(),
  config: apiConfig,
});

export const updateMonitorBody = z.object({
  name: z.string().trim().min(1).max(128).optional(),
  slug: slug.optional(),
  project: z.union([z.string().min(1), z.number().int()]).optional(),
  type: z.literal("cron_job").optional(),
  status: z.enum(["active", "disabled"]).optional(),
  config: apiConfig.partial().optional(),
});

export type CreateMonitorBody = z.output<typeof createMonitorBody>;
export type UpdateMonitorBody = z.output<typeof updateMonitorBody>;
type ApiConfig = z.output<typeof apiConfig>;

/** The API's `config`, on top of `current` for a PUT (a field left out keeps its value). */
export function settingsFromApi(config: Partial<ApiConfig>, current?: MonitorSettings): MonitorSettings {
  const base = current ?? withDefaults("crontab", "", {});
  const keep = <T>(value: T | null | undefined, fallback: T, fresh: T): T =>
    value === undefined ? (current ? fallback : fresh) : (value ?? fresh);
  return {
    scheduleType: config.schedule_type ?? base.scheduleType,
    schedule: (config.schedule as ScheduleValue | undefined) ?? base.schedule,
    checkinMargin: keep(config.checkin_margin, base.checkinMargin, DEFAULTS.checkinMargin),
    maxRuntime: keep(config.max_runtime, base.maxRuntime, DEFAULTS.maxRuntime),
    timezone: keep(config.timezone, base.timezone, DEFAULTS.timezone),
    failureIssueThreshold: keep(
      config.failure_issue_threshold,
      base.failureIssueThreshold,
      DEFAULTS.failureIssueThreshold,
    ),
    recoveryThreshold: keep(config.recovery_threshold, base.recoveryThreshold, DEFAULTS.recoveryThreshold),
  };
}

export type { IntervalUnit };
