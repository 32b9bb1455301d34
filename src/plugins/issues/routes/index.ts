import type { AnyEndpoint } from "../../../http/endpoint.js";
import { deleteIssue, getIssue, updateIssue } from "./issue.js";
import { createComment, deleteComment, listComments, updateComment } from "./comments.js";
import { getEvent, getEventJson, listIssueExternalIssues, listIssueHashes } from "./events.js";
import { bulkDeleteIssues, bulkDeleteProjectIssues, bulkUpdateIssues, bulkUpdateProjectIssues, listIssues, listProjectIssues } from "./list.js";

/** Every HTTP endpoint of the issues area. */
export const issueEndpoints: AnyEndpoint[] = [getIssue, updateIssue, deleteIssue, listIssues, bulkUpdateIssues, bulkDeleteIssues, listProjectIssues,
  bulkUpdateProjectIssues, bulkDeleteProjectIssues,
  getEvent, getEventJson, listIssueHashes, listIssueExternalIssues,
  listComments, createComment, updateComment, deleteComment,
];
