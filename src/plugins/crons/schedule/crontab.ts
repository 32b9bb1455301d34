/**
 * A five-field crontab (`minute hour day-of-month month day-of-week`) evaluated in a time zone
 * through `Intl` (docs/crons.md, "Schedules"): `*`, lists, ranges, steps, month and weekday
 * names, `7` for Sunday, and the `@hourly`-style aliases. As in Vixie cron, when both day fields
 * are restricted a day matching either runs.
 */
export interface Crontab {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** Whether the day-of-month / day-of-week field was `*` (the OR rule applies only when neither is). */
  anyDayOfMonth: boolean;
  anyDayOfWeek: boolean;
}

/** An expression that is not a crontab; the message says which field and why. */
export class CrontabError extends Error {}

const ALIASES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** The first name's number (months count from 1). */
  nameBase?: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  // 7 is Sunday too; folded to 0 below.
  { name: "day of week", min: 0, max: 7, names: DAY_NAMES, nameBase: 0 },
];

function parseValue(text: string, spec: FieldSpec): number {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (spec.nameBase ?? 0);
  if (!/^\d{1,2}$/.test(text)) throw new CrontabError(`${spec.name}: "${text}" is not a number or a name`);
  const value = Number(text);
  if (value < spec.min || value > spec.max)
    throw new CrontabError(`${spec.name}: ${value} is outside ${spec.min}-${spec.max}`);
  return value;
}

/** One comma-separated part: `*`, `5`, `1-5`, `*\/15`, `10-40/10`, `mon-fri`. */
function parsePart(part: string, spec: FieldSpec, into: Set<number>): void {
  const [range = "", stepText, extra] = part.split("/");
  if (extra !== undefined || range === "") throw new CrontabError(`${spec.name}: "${part}" is not a valid entry`);
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d{1,2}$/.test(stepText) || Number(stepText) === 0)
      throw new CrontabError(`${spec.name}: step "${stepText}" must be a positive number`);
    step = Number(stepText);
  }
  let low = spec.min;
  let high = spec.max;
  if (range !== "*") {
    const [from = "", to, more] = range.split("-");
    if (more !== undefined) throw new CrontabError(`${spec.name}: "${range}" is not a valid range`);
    low = parseValue(from, spec);
    // `5/15` means from 5 to the end, stepping by 15.
    high = to !== undefined ? parseValue(to, spec) : stepText !== undefined ? spec.max : low;
    if (high < low) throw new CrontabError(`${spec.name}: range "${range}" runs backwards`);
  }
  for (let value = low; value <= high; value += step) into.add(value);
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(",")) parsePart(part, spec, values);
  return values;
}

/** Parses a crontab; throws a {@link CrontabError} naming the field at fault. */
export function parseCrontab(expression: string): Crontab {
  const trimmed = expression.trim();
  const fields = (ALIASES[trimmed.toLowerCase()] ?? trimmed).split(/\s+/);
  if (fields.length !== 5) throw new CrontabError("expected 5 fields (minute hour day-of-month month day-of-week)");
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = fields.map((field, index) =>
    parseField(field, FIELDS[index] as FieldSpec),
  ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (daysOfWeek.delete(7)) daysOfWeek.add(0);
  return {
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek,
    anyDayOfMonth: fields[2] === "*",
    anyDayOfWeek: fields[4] === "*",
  };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a zone `Intl` does not know. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `Intl` knows the IANA zone (`Europe/Vienna`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time at `instantMs` in the zone, as if it were UTC (ms). */
function wallClock(instantMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs)))
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

function offsetAt(instantMs: number, timeZone: string): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wallClock(whole, timeZone) - whole;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The instant of a wall-clock time in the zone, disambiguated as Temporal's `"compatible"`: a
 * time the clocks skip (spring forward) moves later by the gap; a time that occurs twice (fall
 * back) is its earlier occurrence, so a job runs once.
 */
export function instantOf(wallMs: number, timeZone: string): number {
  const before = offsetAt(wallMs - DAY_MS, timeZone);
  const after = offsetAt(wallMs + DAY_MS, timeZone);
  const valid = [wallMs - before, wallMs - after].filter((instant) => wallClock(instant, timeZone) === wallMs);
  return valid.length > 0 ? Math.min(...valid) : wallMs - before;
}

function dayMatches(crontab: Crontab, dayMs: number): boolean {
  const date = new Date(dayMs);
  if (!crontab.months.has(date.getUTCMonth() + 1)) return false;
  const byMonthDay = crontab.daysOfMonth.has(date.getUTCDate());
  const byWeekDay = crontab.daysOfWeek.has(date.getUTCDay());
  if (crontab.anyDayOfMonth) return byWeekDay;
  if (crontab.anyDayOfWeek) return byMonthDay;
  return byMonthDay || byWeekDay;
}

/** How far ahead a run is looked for: past every leap-day combination. */
const SEARCH_DAYS = 366 * 8 + 2;

const sorted = (values: ReadonlySet<number>) => [...values].sort((a, b) => a - b);

/** A zone's clocks move by at most this much at once: a run found is beaten only by one this close in wall time. */
const MAX_SHIFT_MS = 3 * 3_600_000;

/** The first run strictly after `after` in the zone, or null when the expression never runs (`0 0 30 2 *`). */
export function nextRun(crontab: Crontab, after: Date, timeZone: string): Date | null {
  const afterMs = after.getTime();
  const startWall = wallClock(afterMs, timeZone);
  const firstDay = Math.floor(startWall / DAY_MS) * DAY_MS;
  const hours = sorted(crontab.hours);
  const minutes = sorted(crontab.minutes);
  let best: { wall: number; instant: number } | null = null;
  // From a day early: a fall-back hour may put a run's wall time before the start's.
  for (let day = firstDay - DAY_MS; day < firstDay + SEARCH_DAYS * DAY_MS; day += DAY_MS) {
    if (best && day > best.wall + MAX_SHIFT_MS) break;
    if (!dayMatches(crontab, day)) continue;
    for (const hour of hours) {
      for (const minute of minutes) {
        const wall = day + hour * 3_600_000 + minute * MINUTE_MS;
        if (wall < startWall - MAX_SHIFT_MS) continue;
        if (best && wall > best.wall + MAX_SHIFT_MS) return new Date(best.instant);
        const instant = instantOf(wall, timeZone);
        // A time skipped by spring forward runs later than its wall time: a later wall time may come first.
        if (instant > afterMs && (!best || instant < best.instant)) best = { wall, instant };
      }
    }
  }
  return best ? new Date(best.instant) : null;
}
