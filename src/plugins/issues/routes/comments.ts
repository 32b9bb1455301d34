import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { idString, isoDate } from "../../../http/format.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { CommentServiceToken } from "../tokens.js";

const COMMENTS = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/comments/";
const COMMENT = `${COMMENTS}{comment_id}/`;
const commentBody = z.object({ text: z.string().trim().min(1, "must not be empty").max(10_000, "at most 10000 characters") });

interface CommentRow {
  id: string | number;
  issue_id: string | number;
  text: string;
  date_created: Date;
  date_updated: Date;
  user_id: number | null;
  username?: string | null;
  name?: string | null;
  email?: string | null;
}

function serializeComment(row: CommentRow) {
  return {
    id: idString(row.id),
    issueId: idString(row.issue_id),
    text: row.text,
    user: row.user_id === null ? null : { id: idString(row.user_id), username: row.username ?? null, name: row.name ?? null, email: row.email ?? null },
    dateCreated: isoDate(row.date_created),
    dateUpdated: isoDate(row.date_updated),
  };
}

export const listComments = defineEndpoint({
  method: "GET",
  path: COMMENTS,
  operationId: "comments.list",
  summary: "List an issue's comments, newest first",
  scopes: ["event:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const service = container.resolve(CommentServiceToken);
    const issue = await service.requireIssue(organization.id, params.issue_id);
    const page = await keysetPage((bound) => service.list(organization.id, Number(issue.id), bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (row) => row.date_created.getTime(),
      idOf: (row) => Number(row.id),
    });
    return pageReply(url, page, query.per_page, serializeComment);
  },
});

export const createComment = defineEndpoint({
  method: "POST",
  path: COMMENTS,
  operationId: "comments.create",
  summary: "Comment on an issue",
  scopes: ["event:write"],
  body: commentBody,
  handler: async ({ organization, principal, params, body, container }) => {
    const comment = await container.resolve(CommentServiceToken).create({ organization, principal }, params.issue_id, body.text);
    return { status: 201, body: serializeComment(comment) };
  },
});

export const updateComment = defineEndpoint({
  method: "PUT",
  path: COMMENT,
  operationId: "comments.update",
  summary: "Edit a comment (its author, or event:admin)",
  scopes: ["event:write"],
  body: commentBody,
  handler: async ({ organization, principal, params, body, container, scopes }) => {
    const comment = await container.resolve(CommentServiceToken).update({ organization, principal }, params.issue_id, params.comment_id, body.text, scopes.has("event:admin"));
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
    await container.resolve(CommentServiceToken).delete({ organization, principal }, params.issue_id, params.comment_id, scopes.has("event:admin"));
    return { status: 204 };
  },
});
