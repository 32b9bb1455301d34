import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { IssueRuleRepositoryToken, IssueRuleServiceToken } from "../tokens.js";
import { issueRuleSchema, issueRuleUpdateSchema } from "./schemas.js";
import { serializeIssueRule } from "./serialize.js";

const RULES = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/rules/";
const RULE = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/rules/{rule_id}/";

export const createIssueRule = defineEndpoint({
  method: "POST",
  path: RULES,
  operationId: "issueAlertRules.create",
  summary: "Create an issue alert rule",
  scopes: ["alerts:write"],
  body: issueRuleSchema,
  handler: async ({ organization, params, body, container }) => {
    const service = container.resolve(IssueRuleServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    return { status: 201, body: serializeIssueRule(await service.create(project, body), project) };
  },
});

export const listIssueRules = defineEndpoint({
  method: "GET",
  path: RULES,
  operationId: "issueAlertRules.list",
  summary: "List a project's issue alert rules, newest first",
  scopes: ["alerts:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const project = await container
      .resolve(IssueRuleServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const repository = container.resolve(IssueRuleRepositoryToken);
    const page = await keysetPage((bound) => repository.list(project.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (rule) => rule.date_created.getTime(),
      idOf: (rule) => rule.id,
    });
    return pageReply(url, page, query.per_page, (rule) => serializeIssueRule(rule, project));
  },
});

export const getIssueRule = defineEndpoint({
  method: "GET",
  path: RULE,
  operationId: "issueAlertRules.get",
  summary: "Retrieve an issue alert rule",
  scopes: ["alerts:read"],
  handler: async ({ organization, params, container }) => {
    const service = container.resolve(IssueRuleServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    return { body: serializeIssueRule(await service.require(project, params.rule_id), project) };
  },
});

export const updateIssueRule = defineEndpoint({
  method: "PUT",
  path: RULE,
  operationId: "issueAlertRules.update",
  summary: "Change an issue alert rule; fields absent from the body keep their value",
  scopes: ["alerts:write"],
  body: issueRuleUpdateSchema,
  handler: async ({ organization, params, body, container }) => {
    const service = container.resolve(IssueRuleServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    return { body: serializeIssueRule(await service.update(project, params.rule_id, body), project) };
  },
});

export const deleteIssueRule = defineEndpoint({
  method: "DELETE",
  path: RULE,
  operationId: "issueAlertRules.delete",
  summary: "Delete an issue alert rule",
  scopes: ["alerts:write"],
  handler: async ({ organization, params, container }) => {
    const service = container.resolve(IssueRuleServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    await service.delete(project, params.rule_id);
    return { status: 204 };
  },
});

export const issueRuleEndpoints = [createIssueRule, listIssueRules, getIssueRule, updateIssueRule, deleteIssueRule];
