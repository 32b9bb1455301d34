import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import type { Principal } from "../../../auth/principal.js";
import type { Organization } from "../../../db/schema.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { IssueMergerToken } from "../tokens.js";
import { updateIssueBody } from "../workflow/schemas.js";

const flag = z
  .union([z.boolean(), z.literal(1), z.literal(0), z.literal("1"), z.literal("0")])
  .transform((value) => value === true || value === 1 || value === "1");

/**
 * The bulk PUT's body: the workflow fields, or Sentry's `{"merge": 1}` (docs/issues.md, "Merging
 * and unmerging"), which is refused alongside other changes: a merge names no status of its own.
 */
export const bulkUpdateBody = z
  .intersection(updateIssueBody, z.object({ merge: flag.optional() }))
  .superRefine((body, ctx) => {
    if (!body.merge) return;
    const others = Object.entries(body).filter(([key, value]) => key !== "merge" && value !== undefined);
    if (others.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["merge"],
        message: `cannot be combined with other changes (${others.map(([key]) => key).join(", ")})`,
      });
  });

interface Caller {
  container: DependencyContainer;
  principal: Principal;
  organization: Organization;
}

/** The bulk PUT with `merge`: `{"merge": {"parent", "children"}}`, or a 400 saying why nothing was merged. */
export async function mergeReply(ctx: Caller, ids: number[]) {
  const { organization, principal } = ctx;
  const merged = await ctx.container.resolve(IssueMergerToken).merge({ organization, principal }, ids);
  return { body: { merge: merged } };
}

const hashIds = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
  .pipe(
    z
      .array(z.string().min(1, "must not be empty").max(64, "is not a grouping hash"))
      .min(1, "give the hashes to split off (?id=<hash>, repeatable)")
      .max(100, "at most 100 hashes"),
  );

export const unmergeIssueHashes = defineEndpoint({
  method: "DELETE",
  path: "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/hashes/",
  operationId: "issues.unmergeHashes",
  summary: "Split fingerprint hashes off an issue into a new issue (unmerge); their stored events move with them",
  // Sentry's issue endpoints ask `event:admin` for every DELETE.
  scopes: ["event:admin"],
  query: z.object({ id: hashIds }),
  handler: async (ctx) => {
    const { organization, principal } = ctx;
    await ctx.container
      .resolve(IssueMergerToken)
      .unmerge({ organization, principal }, ctx.params.issue_id, ctx.query.id);
    return { status: 202 };
  },
});
