import { z } from "zod";
import type { FieldErrors } from "../../../http/errors.js";

export const TIME_WINDOWS = [1, 5, 10, 15, 30, 60, 120, 240, 1440] as const;

const threshold = z
  .number({ error: (issue) => (issue.input === undefined ? "a threshold is required" : "must be a number") })
  .min(0, "must be 0 or more");

const trigger = z.object({
  label: z.enum(["critical", "warning"], { error: "must be critical or warning" }),
  alertThreshold: threshold,
});

const fields = {
  name: z.string().trim().min(1).max(256),
  projects: z.array(z.string().min(1).max(64)).min(1, "at least one project is required").max(100),
  query: z.string().trim().max(1000),
  aggregate: z.enum(["count()", "count_unique(user)"], { error: "must be count() or count_unique(user)" }),
  timeWindow: z
    .number({ error: `must be one of ${TIME_WINDOWS.join(", ")} (minutes)` })
    .refine(
      (value) => (TIME_WINDOWS as readonly number[]).includes(value),
      `must be one of ${TIME_WINDOWS.join(", ")} (minutes)`,
    ),
  thresholdType: z.enum(["above", "below"], { error: "must be above or below" }),
  triggers: z
    .array(trigger, { error: "triggers are required" })
    .min(1, "at least one trigger is required")
    .max(2, "at most two triggers (critical and warning)"),
  resolveThreshold: threshold.nullable(),
  status: z.enum(["active", "disabled"], { error: "must be active or disabled" }),
};

export const metricRuleSchema = z.object({
  name: fields.name,
  projects: fields.projects,
  query: fields.query.default(""),
  aggregate: fields.aggregate.default("count()"),
  timeWindow: fields.timeWindow,
  thresholdType: fields.thresholdType.default("above"),
  triggers: fields.triggers,
  resolveThreshold: fields.resolveThreshold.default(null),
  status: fields.status.default("active"),
});

export type MetricRuleInput = z.output<typeof metricRuleSchema>;

/** PUT: fields present replace the stored ones; the merged rule is then checked as a whole. */
export const metricRuleUpdateSchema = z.object({
  name: fields.name.optional(),
  projects: fields.projects.optional(),
  query: fields.query.optional(),
  aggregate: fields.aggregate.optional(),
  timeWindow: fields.timeWindow.optional(),
  thresholdType: fields.thresholdType.optional(),
  triggers: fields.triggers.optional(),
  resolveThreshold: fields.resolveThreshold.optional(),
  status: fields.status.optional(),
});

export type MetricRuleUpdate = z.output<typeof metricRuleUpdateSchema>;

/**
 * What single fields cannot say: one trigger per label, a critical one, warning less severe than
 * critical, and a resolve threshold on the quiet side of every trigger.
 */
export function thresholdErrors(
  rule: Pick<MetricRuleInput, "thresholdType" | "triggers" | "resolveThreshold">,
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const labels = rule.triggers.map((t) => t.label);
  if (new Set(labels).size !== labels.length) add("triggers", "each label (critical, warning) may appear once");
  const critical = rule.triggers.find((t) => t.label === "critical");
  const warning = rule.triggers.find((t) => t.label === "warning");
  if (!critical) add("triggers", "a critical trigger is required");
  const above = rule.thresholdType === "above";
  if (
    critical &&
    warning &&
    (above ? warning.alertThreshold >= critical.alertThreshold : warning.alertThreshold <= critical.alertThreshold)
  ) {
    add(
      "triggers",
      `the warning threshold must be ${above ? "below" : "above"} the critical threshold when thresholdType is ${rule.thresholdType}`,
    );
  }
  const thresholds = rule.triggers.map((t) => t.alertThreshold);
  if (rule.resolveThreshold !== null && thresholds.length > 0) {
    const quietEdge = above ? Math.min(...thresholds) : Math.max(...thresholds);
    if (above ? rule.resolveThreshold > quietEdge : rule.resolveThreshold < quietEdge) {
      add(
        "resolveThreshold",
        `must be ${above ? "at or below" : "at or above"} every trigger threshold when thresholdType is ${rule.thresholdType}`,
      );
    }
  }
  return errors;
}
