import type { IssueComment } from "../tables.js";
import { idString, isoDate } from "../../../http/format.js";

/** A comment with its author's account (null for comments made with a token that has no user). */
export interface CommentWithAuthor extends IssueComment {
  author: { id: number; username: string; name: string; email: string | null } | null;
}

/** `{id, issueId, text, user, dateCreated, dateUpdated}`; `user` as in activity entries. */
export function serializeComment(comment: CommentWithAuthor) {
  const { author } = comment;
  return {
    id: idString(comment.id),
    issueId: idString(comment.issue_id),
    text: comment.text,
    user: author && { id: idString(author.id), username: author.username, name: author.name, email: author.email },
    dateCreated: isoDate(comment.date_created),
    dateUpdated: isoDate(comment.date_updated),
  };
}
