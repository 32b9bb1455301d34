import { autoSpec, periodSpec, type TimelineSpec } from "../issue/stats.js";
import { type ListParams, windowBounds } from "./params.js";

/** What the page's items show besides their rows: the stats series and the window's counts. */
export interface ListPresentation {
  /** The stats series to draw, or null for no `stats`. */
  stats: TimelineSpec | null;
  /** The buckets the time window's counts are summed over, or null without a window. */
  window: TimelineSpec | null;
}

/** The stats series and window buckets of a list request at `now`. */
export function listPresentation(params: Pick<ListParams, "window" | "series">, now: Date): ListPresentation {
  const bounds = windowBounds(params.window, now);
  const series = params.series;
  const stats = series === null ? null : series === "auto" ? autoSpec(bounds ?? lastDay(now)) : periodSpec(series, now);
  return { stats, window: bounds ? autoSpec(bounds) : null };
}

/**
 * The range `auto` draws without a window: Sentry's default query range, the last 24 hours
 * (hourly points); the list itself stays unwindowed (docs/sentry-compatibility.md).
 */
const lastDay = (now: Date) => ({ start: new Date(now.getTime() - 86_400_000), end: now });
