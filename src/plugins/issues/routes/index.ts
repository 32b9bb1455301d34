import { deleteIssue, getIssue, updateIssue } from "./issue.js";
import { createComment, deleteComment, listComments, updateComment } from "./comments.js";
import { listIssueExternalIssues, listIssueHashes } from "./events.js";
import { getIssueEvent, listIssueEvents } from "./issue-events.js";
import { legacyIssueEndpoints } from "./legacy.js";
import {
  bulkDeleteIssues,
  bulkDeleteProjectIssues,
  bulkUpdateIssues,
  bulkUpdateProjectIssues,
  listIssues,
  listProjectIssues,
} from "./list.js";
import { resolveEventId, resolveShortId } from "./lookups.js";
import { getIssueTag, listIssueTags, listIssueTagValues } from "./tags.js";

/**
 * Every HTTP endpoint of the issues area (the issue's own under Sentry's legacy `/api/0/issues/{id}/` too).
 * Not widened to `AnyEndpoint[]`: each element's type is what `faultline.api.issues.*` is typed from.
 */
export const issueEndpoints = [
  getIssue,
  updateIssue,
  deleteIssue,
  listIssueEvents,
  getIssueEvent,
  listIssueTags,
  getIssueTag,
  listIssueTagValues,
  listIssueHashes,
  listIssues,
  bulkUpdateIssues,
  bulkDeleteIssues,
  listProjectIssues,
  bulkUpdateProjectIssues,
  bulkDeleteProjectIssues,
  listIssueExternalIssues,
  listComments,
  createComment,
  updateComment,
  deleteComment,
  resolveShortId,
  resolveEventId,
  ...legacyIssueEndpoints,
];
