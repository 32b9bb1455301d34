import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import { Db } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { cursorSchema, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { EventStoreToken } from "../../event-store/index.js";
import { IssueRepositoryToken } from "../tokens.js";
import { issueExternalIssues } from "../issue/external-issues.js";

const ISSUE_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

async function requireIssueId(container: DependencyContainer, organizationId: number, ref: string): Promise<number> {
  const issue = await container.resolve(IssueRepositoryToken).find(organizationId, ref);
  if (!issue) throw notFound();
  return Number(issue.id);
}

export const listIssueHashes = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}hashes/`,
  operationId: "issues.hashes",
  summary: "The fingerprint hashes grouped into an issue, newest latest event first",
  scopes: ["event:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const issueId = await requireIssueId(container, organization.id, params.issue_id);
    const { page, serialize } = await container
      .resolve(EventStoreToken)
      .issueHashPage(issueId, query.cursor, query.per_page);
    return pageReply(url, page, query.per_page, serialize);
  },
});

export const listIssueExternalIssues = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}external-issues/`,
  operationId: "issues.externalIssues",
  summary: "External issue links of every installation for one issue",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const issueId = await requireIssueId(container, organization.id, params.issue_id);
    return { body: await issueExternalIssues(container.resolve(Db), organization.id, issueId) };
  },
});
