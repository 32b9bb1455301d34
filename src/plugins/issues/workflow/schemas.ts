import { z } from "zod";

const minutes = z.number().int().positive();
const ignoreConditions = {
  ignoreDuration: minutes.nullable().optional(),
  ignoreCount: z.number().int().positive().nullable().optional(),
  ignoreWindow: minutes.max(10080, "must be at most 10080 minutes (7 days)").nullable().optional(),
  ignoreUserCount: z.number().int().positive().nullable().optional(),
  ignoreUserWindow: minutes.max(10080, "must be at most 10080 minutes (7 days)").nullable().optional(),
};

/** Sentry's older spellings of the ignore conditions, still sent by its clients (`snoozeDuration`…). */
const SNOOZE_ALIASES = {
  snoozeDuration: "ignoreDuration",
  snoozeCount: "ignoreCount",
  snoozeWindow: "ignoreWindow",
  snoozeUserCount: "ignoreUserCount",
  snoozeUserWindow: "ignoreUserWindow",
} as const;

const snoozeConditions = {
  snoozeDuration: ignoreConditions.ignoreDuration,
  snoozeCount: ignoreConditions.ignoreCount,
  snoozeWindow: ignoreConditions.ignoreWindow,
  snoozeUserCount: ignoreConditions.ignoreUserCount,
  snoozeUserWindow: ignoreConditions.ignoreUserWindow,
};

type Conditions = { [K in keyof typeof ignoreConditions]?: number | null };
type WithSnooze<T> = T & { [K in keyof typeof SNOOZE_ALIASES]?: number | null };

/** The `ignore*` fields, each taken from its `snooze*` spelling when only that was sent (as Sentry reads them). */
function foldSnooze<T extends Conditions>(value: WithSnooze<T>): T {
  const {
    snoozeDuration: _d,
    snoozeCount: _c,
    snoozeWindow: _w,
    snoozeUserCount: _uc,
    snoozeUserWindow: _uw,
    ...rest
  } = value;
  const folded = { ...rest } as unknown as T & Conditions;
  for (const [snooze, ignore] of Object.entries(SNOOZE_ALIASES) as Array<
    [keyof typeof SNOOZE_ALIASES, keyof Conditions]
  >) {
    if (folded[ignore] === undefined && value[snooze] !== undefined) folded[ignore] = value[snooze];
  }
  return folded;
}

/**
 * PUT body of an issue (docs/issues.md, "Workflow"). Unknown fields are ignored; present fields
 * change. Sentry's own spellings are accepted too: `status: "muted"` (what current SDKs and
 * sentry-cli say for ignored) and the `snooze*` names of the ignore conditions, top-level or in
 * statusDetails (docs/sentry-compatibility.md, "Workflow spellings").
 */
export const updateIssueBody = z
  .object({
    status: z
      .enum(["resolved", "resolvedInNextRelease", "unresolved", "ignored", "muted"])
      .transform((status) => (status === "muted" ? "ignored" : status))
      .optional(),
    statusDetails: z
      .object({
        inRelease: z.string().min(1).max(250).optional(),
        inNextRelease: z.boolean().optional(),
        inCommit: z
          .union([
            z.string().min(1).max(64),
            z.object({ commit: z.string().min(1).max(64) }).transform((c) => c.commit),
          ])
          .optional(),
        ...ignoreConditions,
        ...snoozeConditions,
      })
      .transform(foldSnooze)
      .optional(),
    ...ignoreConditions,
    ...snoozeConditions,
    substatus: z.enum(["archived_until_condition_met", "archived_forever"]).nullable().optional(),
    assignedTo: z.string().max(200).nullable().optional(),
    hasSeen: z.boolean().optional(),
    isBookmarked: z.boolean().optional(),
    isSubscribed: z.boolean().optional(),
    isPublic: z.boolean().optional(),
    /** Delete the issue and refuse its hashes' future events at accept (docs/issues.md, "Discard"); the rest is ignored. */
    discard: z.boolean().optional(),
  })
  .transform(foldSnooze);

export type UpdateIssueBody = z.output<typeof updateIssueBody>;
export type UpdateIssueInput = z.input<typeof updateIssueBody>;

export interface IgnoreConditions {
  ignoreDuration: number | null;
  ignoreCount: number | null;
  ignoreWindow: number | null;
  ignoreUserCount: number | null;
  ignoreUserWindow: number | null;
}

/** The ignore conditions: from statusDetails when present, else the top-level fields. */
export function ignoreConditionsOf(body: UpdateIssueBody): IgnoreConditions {
  const source = body.statusDetails ?? body;
  return {
    ignoreDuration: source.ignoreDuration ?? null,
    ignoreCount: source.ignoreCount ?? null,
    ignoreWindow: source.ignoreWindow ?? null,
    ignoreUserCount: source.ignoreUserCount ?? null,
    ignoreUserWindow: source.ignoreUserWindow ?? null,
  };
}
