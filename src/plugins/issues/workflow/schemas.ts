import { z } from "zod";

const minutes = z.number().int().positive();
const ignoreConditions = {
  ignoreDuration: minutes.nullable().optional(),
  ignoreCount: z.number().int().positive().nullable().optional(),
  ignoreWindow: minutes.max(10080, "must be at most 10080 minutes (7 days)").nullable().optional(),
  ignoreUserCount: z.number().int().positive().nullable().optional(),
  ignoreUserWindow: minutes.max(10080, "must be at most 10080 minutes (7 days)").nullable().optional(),
};

/** PUT body of an issue (api.md §3.4). Unknown fields are ignored; present fields change. */
export const updateIssueBody = z.object({
  status: z.enum(["resolved", "resolvedInNextRelease", "unresolved", "ignored"]).optional(),
  statusDetails: z
    .object({
      inRelease: z.string().min(1).max(250).optional(),
      inNextRelease: z.boolean().optional(),
      inCommit: z.union([z.string().min(1).max(64), z.object({ commit: z.string().min(1).max(64) }).transform((c) => c.commit)]).optional(),
      ...ignoreConditions,
    })
    .optional(),
  ...ignoreConditions,
  substatus: z.enum(["archived_until_condition_met", "archived_forever"]).nullable().optional(),
  assignedTo: z.string().max(200).nullable().optional(),
  hasSeen: z.boolean().optional(),
  isBookmarked: z.boolean().optional(),
  isSubscribed: z.boolean().optional(),
  isPublic: z.boolean().optional(),
});

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
