import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { commentBody } from "./schemas.js";
import { serializeComment } from "./serialize.js";
import { CommentServiceToken } from "../tokens.js";

const COMMENTS = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/comments/";
const COMMENT = `${COMMENTS}{comment_id}/`;

export const listComments = defineEndpoint({
  method: "GET",
  path: COMMENTS,
  operationId: "comments.list",
  summary: "List an issue's comments, newest first",
  scopes: ["event:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const page = await container
      .resolve(CommentServiceToken)
      .list(organization.id, params.issue_id, query.cursor, query.per_page);
    return pageReply(url, page, query.per_page, serializeComment);
  },
});

export const createComment = defineEndpoint({
  method: "POST",
  path: COMMENTS,
  operationId: "comments.create",
  summary: "Comment on an issue (a token without a user comments as no one: `user` is null)",
  scopes: ["event:write"],
  body: commentBody,
  handler: async ({ organization, principal, params, body, container }) => {
    const comment = await container
      .resolve(CommentServiceToken)
      .create({ organization, principal }, params.issue_id, body.text);
    return { status: 201, body: serializeComment(comment) };
  },
});

// Editing or deleting needs event:write; someone else's comment needs event:admin too (checked
// by the service, which knows the author). `scopes` are already limited by the user's role.
export const updateComment = defineEndpoint({
  method: "PUT",
  path: COMMENT,
  operationId: "comments.update",
  summary: "Edit a comment (its author, or event:admin)",
  scopes: ["event:write"],
  body: commentBody,
  handler: async ({ organization, principal, params, body, container, scopes }) => {
    const service = container.resolve(CommentServiceToken);
    const comment = await service.update(
      { organization, principal },
      params.issue_id,
      params.comment_id,
      body.text,
      scopes.has("event:admin"),
    );
    return { body: serializeComment(comment) };
  },
});

export const deleteComment = defineEndpoint({
  method: "DELETE",
  path: COMMENT,
  operationId: "comments.delete",
  summary: "Delete a comment (its author, or event:admin)",
  scopes: ["event:write"],
  handler: async ({ organization, principal, params, container, scopes }) => {
    await container
      .resolve(CommentServiceToken)
      .delete({ organization, principal }, params.issue_id, params.comment_id, scopes.has("event:admin"));
    return { status: 204 };
  },
});
