import { type Condition, type Filter, type Interval, INTERVALS, LEVELS } from "./schemas.js";

const MINUTE = 60_000;

/** What rule evaluation reads about one stored event and its issue. */
export interface EventFacts {
  level: string;
  environment: string | null;
  tags: ReadonlyArray<readonly [string, string]>;
  /** The event created its issue. */
  firstEvent: boolean;
  /** The automatic status change the event caused. */
  transition: "regression" | "snooze_expired" | "escalating" | null;
  /** The event count (every event of the ingest batch included). */
  timesSeen: number;
}

/** The part of a stored rule evaluation needs. */
export interface EvaluableRule {
  actionMatch: "all" | "any";
  conditions: readonly Condition[];
  filters: readonly Filter[];
  environment: string | null;
}

/** Events of the issue in the last `interval`, in `environment` when given (null: all). */
export type EventCounter = (interval: Interval, environment: string | null) => Promise<number>;

/**
 * First minute bucket of an interval ending at `at`: the current minute plus the N−1 before it
 * (counters are per minute of event time).
 */
export function windowStart(at: Date, interval: Interval): Date {
  return new Date(Math.floor(at.getTime() / MINUTE) * MINUTE - (INTERVALS[interval] - 1) * MINUTE);
}

const severity = (level: string) => LEVELS.indexOf(level as (typeof LEVELS)[number]);

/** Whether one filter lets the event through (documented in docs/alerts.md). */
export function filterPasses(filter: Filter, facts: EventFacts): boolean {
  switch (filter.id) {
    case "level": {
      const actual = severity(facts.level);
      const wanted = severity(filter.level);
      if (actual < 0) return false;
      return filter.match === "eq" ? actual === wanted : filter.match === "gte" ? actual >= wanted : actual <= wanted;
    }
    case "tagged_event":
      return tagMatches(filter, facts.tags);
    case "issue_occurrences":
      return facts.timesSeen >= filter.value;
  }
}

/** Sentry's tagged_event: keys and values compared case-insensitively. */
function tagMatches(filter: Extract<Filter, { id: "tagged_event" }>, tags: EventFacts["tags"]): boolean {
  const key = filter.key.toLowerCase();
  const values = tags.filter(([k]) => k.toLowerCase() === key).map(([, v]) => v.toLowerCase());
  const wanted = (filter.value ?? "").toLowerCase();
  switch (filter.match) {
    case "is":
      return values.length > 0;
    case "ns":
      return values.length === 0;
    case "eq":
      return values.includes(wanted);
    case "ne":
      return !values.includes(wanted);
    case "co":
      return values.some((value) => value.includes(wanted));
    case "nc":
      return !values.some((value) => value.includes(wanted));
  }
}

/** A condition that needs no counting: true/false at once. */
function instantCondition(condition: Exclude<Condition, { id: "event_frequency" }>, facts: EventFacts): boolean {
  switch (condition.id) {
    case "first_seen_event":
      return facts.firstEvent;
    case "regression_event":
      return facts.transition === "regression";
    case "reappeared_event":
      return facts.transition === "snooze_expired" || facts.transition === "escalating";
    case "every_event":
      return true;
  }
}

/** "More than N events in the interval"; an issue seen N times or fewer in all cannot hold, so no count is read. */
async function frequencyCondition(
  condition: Extract<Condition, { id: "event_frequency" }>,
  facts: EventFacts,
  environment: string | null,
  count: EventCounter,
): Promise<boolean> {
  if (facts.timesSeen <= condition.value) return false;
  return (await count(condition.interval, environment)) > condition.value;
}

/**
 * Whether a rule fires for an event, throttling aside: the environment, every filter, then the
 * conditions (all or any). Counting conditions run last and only when they can decide.
 */
export async function ruleMatches(rule: EvaluableRule, facts: EventFacts, count: EventCounter): Promise<boolean> {
  if (rule.environment !== null && facts.environment !== rule.environment) return false;
  if (!rule.filters.every((filter) => filterPasses(filter, facts))) return false;
  const instant = rule.conditions.filter(
    (c): c is Exclude<Condition, { id: "event_frequency" }> => c.id !== "event_frequency",
  );
  const counting = rule.conditions.filter(
    (c): c is Extract<Condition, { id: "event_frequency" }> => c.id === "event_frequency",
  );
  if (rule.actionMatch === "all") {
    if (!instant.every((condition) => instantCondition(condition, facts))) return false;
    for (const condition of counting)
      if (!(await frequencyCondition(condition, facts, rule.environment, count))) return false;
    return true;
  }
  if (instant.some((condition) => instantCondition(condition, facts))) return true;
  for (const condition of counting)
    if (await frequencyCondition(condition, facts, rule.environment, count)) return true;
  return false;
}
