import { z } from "zod";
import { CHAT_PROVIDERS } from "../../notifications/index.js";

/** Event levels from least to most severe: what `gte` / `lte` compare. */
export const LEVELS = ["debug", "info", "warning", "error", "fatal"] as const;
export const INTERVALS = { "1m": 1, "5m": 5, "15m": 15, "1h": 60, "1d": 1440 } as const;
export type Interval = keyof typeof INTERVALS;

/** The message of a missing or unknown `id` in a list of conditions or filters. */
const unknownId = (kind: string) => (issue: { code: string; input?: unknown }) => {
  if (issue.code !== "invalid_union") return undefined;
  const id = (issue.input as { id?: unknown } | undefined)?.id;
  return id === undefined ? `${kind} id is required` : `Unknown ${kind} id: ${JSON.stringify(id)}`;
};

const count = z.number().int().min(0).max(2_147_483_647);

export const conditionSchema = z.discriminatedUnion(
  "id",
  [
    z.object({ id: z.literal("first_seen_event") }),
    z.object({ id: z.literal("regression_event") }),
    z.object({ id: z.literal("reappeared_event") }),
    z.object({ id: z.literal("every_event") }),
    z.object({
      id: z.literal("event_frequency"),
      value: count,
      interval: z.enum(Object.keys(INTERVALS) as [Interval, ...Interval[]], {
        error: `must be one of ${Object.keys(INTERVALS).join(", ")}`,
      }),
    }),
  ],
  { error: unknownId("condition") },
);

const TAG_MATCHES = ["eq", "ne", "co", "nc", "is", "ns"] as const;

export const filterSchema = z.discriminatedUnion(
  "id",
  [
    z.object({
      id: z.literal("level"),
      match: z.enum(["eq", "gte", "lte"], { error: "must be one of eq, gte, lte" }),
      level: z.enum(LEVELS, { error: `must be one of ${LEVELS.join(", ")}` }),
    }),
    z
      .object({
        id: z.literal("tagged_event"),
        key: z.string().trim().min(1).max(200),
        match: z.enum(TAG_MATCHES, { error: `must be one of ${TAG_MATCHES.join(", ")}` }),
        value: z.string().max(200).optional(),
      })
      .refine(
        (filter) =>
          filter.match === "is" || filter.match === "ns" || (filter.value !== undefined && filter.value !== ""),
        {
          message: "a value is required for this match",
          path: ["value"],
        },
      ),
    z.object({ id: z.literal("issue_occurrences"), value: count }),
  ],
  { error: unknownId("filter") },
);

/** Sentry's email action: the issue's owners, a team or a member, with a fallthrough when the issue has no owner. */
export const EMAIL_ACTION = "sentry.mail.actions.NotifyEmailAction";
/** A chat room's incoming webhook (Slack, Discord, Microsoft Teams, or plain JSON). */
export const CHAT_ACTION = "faultline.actions.NotifyChatAction";
/** Sentry's "all legacy integrations": the project's service hooks and installed apps' `event_alert` webhooks. */
export const LEGACY_ACTION = "sentry.rules.actions.notify_event.NotifyEventAction";

const TARGET_TYPES = ["IssueOwners", "Team", "Member"] as const;
const FALLTHROUGH_TYPES = ["ActiveMembers", "AllMembers", "NoOne"] as const;
/** A chat room's incoming webhook: http(s) (private addresses are refused when sending, as for every delivery). */
export const webhookUrl = z
  .string()
  .max(2_000)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL");

export const actionSchema = z.discriminatedUnion(
  "id",
  [
    z
      .object({
        id: z.literal(EMAIL_ACTION),
        targetType: z.enum(TARGET_TYPES, { error: `must be one of ${TARGET_TYPES.join(", ")}` }),
        targetIdentifier: z.union([z.string(), z.number()]).nullable().default(null),
        fallthroughType: z
          .enum(FALLTHROUGH_TYPES, { error: `must be one of ${FALLTHROUGH_TYPES.join(", ")}` })
          .default("ActiveMembers"),
      })
      .refine(
        (action) => action.targetType === "IssueOwners" || /^\d{1,9}$/.test(String(action.targetIdentifier ?? "")),
        {
          message: "a Team or Member target needs the team's or user's id",
          path: ["targetIdentifier"],
        },
      )
      .transform((action) => ({
        ...action,
        targetIdentifier: action.targetType === "IssueOwners" ? null : String(action.targetIdentifier),
      })),
    z.object({
      id: z.literal(CHAT_ACTION),
      provider: z.enum(CHAT_PROVIDERS, { error: `must be one of ${CHAT_PROVIDERS.join(", ")}` }),
      webhookUrl,
    }),
    z.object({ id: z.literal(LEGACY_ACTION) }),
  ],
  { error: unknownId("action") },
);

export type Action = z.output<typeof actionSchema>;
export type Condition = z.output<typeof conditionSchema>;
export type Filter = z.output<typeof filterSchema>;

const fields = {
  name: z.string().trim().min(1).max(256),
  actionMatch: z.enum(["all", "any"], { error: "must be all or any" }),
  conditions: z.array(conditionSchema).min(1, "at least one condition is required").max(20),
  filters: z.array(filterSchema).max(20),
  frequency: z
    .number()
    .int()
    .min(5, "must be at least 5 minutes")
    .max(43_200, "must be at most 43200 minutes (30 days)"),
  environment: z.string().trim().min(1).max(64).nullable(),
  status: z.enum(["active", "disabled"], { error: "must be active or disabled" }),
  /** Absent or empty: today's behaviour (service hooks and app webhooks), as rules made before actions existed. */
  actions: z.array(actionSchema).max(20),
};

/** A whole rule as stored: what POST makes with defaults, and what a PUT must leave valid. */
export const issueRuleSchema = z.object({
  name: fields.name,
  actionMatch: fields.actionMatch.default("all"),
  conditions: fields.conditions,
  filters: fields.filters.default([]),
  frequency: fields.frequency.default(30),
  environment: fields.environment.default(null),
  status: fields.status.default("active"),
  actions: fields.actions.default([]),
});

export type IssueRuleInput = z.output<typeof issueRuleSchema>;

/** PUT changes only the fields present; no rule field depends on another, so each is checked alone. */
export const issueRuleUpdateSchema = z.object({
  name: fields.name.optional(),
  actionMatch: fields.actionMatch.optional(),
  conditions: fields.conditions.optional(),
  filters: fields.filters.optional(),
  frequency: fields.frequency.optional(),
  environment: fields.environment.optional(),
  status: fields.status.optional(),
  actions: fields.actions.optional(),
});
