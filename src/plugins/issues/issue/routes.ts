import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { serializeIssueDetail } from "./serialize.js";
import { IssueRepositoryToken, IssueWorkflowToken } from "../tokens.js";
import { updateIssueBody } from "../workflow/schemas.js";
import { serializeContext } from "./context.js";
import { discardIssues } from "../tombstones/discard.js";

const ISSUE_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

export const getIssue = defineEndpoint({
  method: "GET",
  path: ISSUE_PATH,
  operationId: "issues.get",
  summary: "Retrieve an issue (by numeric id or short id)",
  scopes: ["event:read"],
  handler: async (ctx) => {
    const serialize = serializeContext(ctx, null);
    const found = await ctx.container
      .resolve(IssueRepositoryToken)
      .findDetail(ctx.organization.id, ctx.params.issue_id, serialize.userId, serialize.now, serialize.userReports);
    if (!found) throw notFound();
    return { body: await serializeIssueDetail(found, serialize) };
  },
});

export const updateIssue = defineEndpoint({
  method: "PUT",
  path: ISSUE_PATH,
  operationId: "issues.update",
  summary: "Update an issue: status, assignment, bookmarks, subscription, seen, public; or discard it",
  scopes: ["event:write"],
  body: updateIssueBody,
  handler: async (ctx) => {
    const { organization, principal } = ctx;
    if (ctx.body.discard === true) {
      const found = await ctx.container.resolve(IssueRepositoryToken).find(organization.id, ctx.params.issue_id);
      if (!found || (await discardIssues(ctx, [Number(found.id)])) === 0) throw notFound();
      return { status: 204 };
    }
    const issue = await ctx.container
      .resolve(IssueWorkflowToken)
      .update({ organization, principal }, ctx.params.issue_id, ctx.body);
    return { body: await serializeIssueDetail(issue, serializeContext(ctx, null)) };
  },
});

export const deleteIssue = defineEndpoint({
  method: "DELETE",
  path: ISSUE_PATH,
  operationId: "issues.delete",
  summary: "Delete an issue; its data is purged in the background",
  scopes: ["event:admin"],
  handler: async (ctx) => {
    const { organization, principal } = ctx;
    const issue = await ctx.container.resolve(IssueRepositoryToken).find(organization.id, ctx.params.issue_id);
    if (!issue) throw notFound();
    await ctx.container.resolve(IssueWorkflowToken).delete({ organization, principal }, [Number(issue.id)]);
    return { status: 202 };
  },
});

/** `?id=1&id=2` for bulk operations: at most 1000 numeric ids. */
export const bulkIdsSchema = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^\d{1,15}$/, "must be a numeric issue id")
          .transform(Number),
      )
      .max(1000, "at most 1000 ids"),
  );
