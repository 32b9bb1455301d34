import { z } from "zod";
import type { FieldErrors } from "../../../http/errors.js";
import { CHAT_PROVIDERS } from "../../notifications/index.js";
import { webhookUrl } from "../issue-rules/schemas.js";

export const TIME_WINDOWS = [1, 5, 10, 15, 30, 60, 120, 240, 1440] as const;

const threshold = z
  .number({ error: (issue) => (issue.input === undefined ? "a threshold is required" : "must be a number") })
  .min(0, "must be 0 or more");

const METRIC_ACTION_TYPES = ["email", "chat"] as const;

/**
 * What a trigger does when the incident reaches its level (and when the incident resolves): Sentry's
 * `email` action to a user or a team, or a chat room's webhook.
 */
export const metricActionSchema = z.discriminatedUnion(
  "type",
  [
    z.object({
      type: z.literal("email"),
      targetType: z.enum(["user", "team"], { error: "must be user or team" }),
      targetIdentifier: z
        .union([z.string(), z.number()], { error: "the user's or team's id is required" })
        .transform(String)
        .refine((id) => /^\d{1,9}$/.test(id), "must be the user's or team's id"),
    }),
    z.object({
      type: z.literal("chat"),
      provider: z.enum(CHAT_PROVIDERS, { error: `must be one of ${CHAT_PROVIDERS.join(", ")}` }),
      webhookUrl,
    }),
  ],
  {
    error: (issue) => {
      if (issue.code !== "invalid_union") return undefined;
      const type = (issue.input as { type?: unknown } | undefined)?.type;
      return type === undefined
        ? "action type is required"
        : `Unknown action type: ${JSON.stringify(type)} (${METRIC_ACTION_TYPES.join(", ")})`;
    },
  },
);

export type MetricAction = z.output<typeof metricActionSchema>;

const trigger = z.object({
  label: z.enum(["critical", "warning"], { error: "must be critical or warning" }),
  alertThreshold: threshold,
  actions: z.array(metricActionSchema).max(10).default([]),
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
export function thresholdErrors(rule: {
  thresholdType: MetricRuleInput["thresholdType"];
  triggers: ReadonlyArray<{ label: "critical" | "warning"; alertThreshold: number }>;
  resolveThreshold: number | null;
}): FieldErrors {
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
