import type { IntervalUnit, ScheduleValue } from "../tables.js";
import { type Crontab, nextRun, parseCrontab } from "./crontab.js";

/** What the next expected check-in is computed from. */
export interface Schedule {
  type: "crontab" | "interval";
  value: ScheduleValue;
  timezone: string;
}

const parsed = new Map<string, Crontab>();

function crontabOf(expression: string): Crontab {
  let crontab = parsed.get(expression);
  if (!crontab) {
    crontab = parseCrontab(expression);
    if (parsed.size > 1000) parsed.clear();
    parsed.set(expression, crontab);
  }
  return crontab;
}

function addInterval(from: Date, count: number, unit: IntervalUnit): Date {
  const next = new Date(from);
  if (unit === "minute") next.setUTCMinutes(next.getUTCMinutes() + count);
  else if (unit === "hour") next.setUTCHours(next.getUTCHours() + count);
  else if (unit === "day") next.setUTCDate(next.getUTCDate() + count);
  else if (unit === "week") next.setUTCDate(next.getUTCDate() + 7 * count);
  else if (unit === "month") next.setUTCMonth(next.getUTCMonth() + count);
  else next.setUTCFullYear(next.getUTCFullYear() + count);
  return next;
}

/**
 * When the check-in after `after` is expected: a crontab's next run in the monitor's zone, or an
 * interval after `after` (Sentry counts intervals from the last check-in). Null for a crontab that
 * never runs (refused when the monitor is saved, so only for rows written otherwise).
 */
export function nextExpected(schedule: Schedule, after: Date): Date | null {
  if (schedule.type === "interval") {
    const [count, unit] = schedule.value as [number, IntervalUnit];
    return addInterval(after, count, unit);
  }
  return nextRun(crontabOf(schedule.value as string), after, schedule.timezone);
}

const MINUTE_MS = 60_000;

/** `expected` plus the margin in minutes: the last moment a check-in is on time. */
export function latestOnTime(expected: Date, marginMinutes: number): Date {
  return new Date(expected.getTime() + marginMinutes * MINUTE_MS);
}
