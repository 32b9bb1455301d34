import { deleteIssue, getIssue, updateIssue } from "./issue/routes.js";
import { createComment, deleteComment, listComments, updateComment } from "./comments/routes.js";
import { listIssueExternalIssues, listIssueHashes } from "./events/hashes.js";
import { getIssueEvent, listIssueEvents } from "./events/routes.js";
import { legacyIssueEndpoints } from "./legacy/routes.js";
import {
  bulkDeleteIssues,
  bulkDeleteProjectIssues,
  bulkUpdateIssues,
  bulkUpdateProjectIssues,
  listIssues,
  listProjectIssues,
} from "./list/routes.js";
import { resolveEventId, resolveShortId } from "./issue/lookups.js";
import { deleteTombstone, listTombstones } from "./tombstones/routes.js";
import { getSharedIssue } from "./share/routes.js";
import { unmergeIssueHashes } from "./merge/routes.js";
import { getIssueTag, listIssueTags, listIssueTagValues } from "./events/tags.js";
import { listIssueSearchKeys } from "./search/routes.js";

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
  unmergeIssueHashes,
  listIssues,
  listIssueSearchKeys,
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
  listTombstones,
  deleteTombstone,
  getSharedIssue,
  ...legacyIssueEndpoints,
];
