import type { MetricTriggerLabel } from "../tables.js";

export type IncidentStep = "open" | MetricTriggerLabel | "resolved";

export interface Thresholds {
  thresholdType: "above" | "below";
  triggers: ReadonlyArray<{ label: MetricTriggerLabel; alertThreshold: number }>;
  resolveThreshold: number | null;
}

/** Whether a value is past a threshold on the alerting side (strictly above / below). */
const past = (t: Thresholds, value: number, threshold: number) =>
  t.thresholdType === "above" ? value > threshold : value < threshold;

/** The most severe trigger the value crosses, or null. */
export function levelFor(value: number, t: Thresholds): MetricTriggerLabel | null {
  for (const label of ["critical", "warning"] as const) {
    const trigger = t.triggers.find((candidate) => candidate.label === label);
    if (trigger && past(t, value, trigger.alertThreshold)) return label;
  }
  return null;
}

/**
 * The transitions one evaluation causes, in delivery order. Crossing a trigger with no incident
 * open → `open` then its level; a different level while open → that level; crossing no trigger
 * while open → `resolved` once the value is past `resolveThreshold` (strictly below it for
 * `above`), or at once when there is none. Otherwise nothing.
 */
export function incidentSteps(current: MetricTriggerLabel | null, value: number, t: Thresholds): IncidentStep[] {
  const level = levelFor(value, t);
  if (level) {
    if (current === null) return ["open", level];
    return level === current ? [] : [level];
  }
  if (current === null) return [];
  if (t.resolveThreshold === null) return ["resolved"];
  const resolved = t.thresholdType === "above" ? value < t.resolveThreshold : value > t.resolveThreshold;
  return resolved ? ["resolved"] : [];
}
