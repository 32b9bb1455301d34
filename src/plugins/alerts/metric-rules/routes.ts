import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { MetricRuleRepositoryToken, MetricRuleServiceToken } from "../tokens.js";
import { metricRuleSchema, metricRuleUpdateSchema } from "./schemas.js";
import { serializeIncident, serializeMetricRule } from "./serialize.js";

const RULES = "/api/0/organizations/{organization_id_or_slug}/alert-rules/";
const RULE = "/api/0/organizations/{organization_id_or_slug}/alert-rules/{alert_rule_id}/";
const listQuery = z.object({ per_page: pageSizeSchema, cursor: cursorSchema });

export const createMetricRule = defineEndpoint({
  method: "POST",
  path: RULES,
  operationId: "metricAlertRules.create",
  summary: "Create a metric alert rule",
  scopes: ["alerts:write"],
  body: metricRuleSchema,
  handler: async ({ organization, body, container }) => {
    const rule = await container.resolve(MetricRuleServiceToken).create(organization.id, body);
    const slugs = await container.resolve(MetricRuleRepositoryToken).projectSlugs(organization.id, rule.project_ids);
    return { status: 201, body: serializeMetricRule(rule, slugs) };
  },
});

export const listMetricRules = defineEndpoint({
  method: "GET",
  path: RULES,
  operationId: "metricAlertRules.list",
  summary: "List an organization's metric alert rules, newest first",
  scopes: ["alerts:read"],
  query: listQuery,
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(MetricRuleRepositoryToken);
    const page = await keysetPage((bound) => repository.list(organization.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (rule) => rule.date_created.getTime(),
      idOf: (rule) => rule.id,
    });
    const slugs = await repository.projectSlugs(
      organization.id,
      page.rows.flatMap((rule) => rule.project_ids),
    );
    return pageReply(url, page, query.per_page, (rule) => serializeMetricRule(rule, slugs));
  },
});

export const getMetricRule = defineEndpoint({
  method: "GET",
  path: RULE,
  operationId: "metricAlertRules.get",
  summary: "Retrieve a metric alert rule",
  scopes: ["alerts:read"],
  handler: async ({ organization, params, container }) => {
    const rule = await container.resolve(MetricRuleServiceToken).require(organization.id, params.alert_rule_id);
    const slugs = await container.resolve(MetricRuleRepositoryToken).projectSlugs(organization.id, rule.project_ids);
    return { body: serializeMetricRule(rule, slugs) };
  },
});

export const updateMetricRule = defineEndpoint({
  method: "PUT",
  path: RULE,
  operationId: "metricAlertRules.update",
  summary: "Change a metric alert rule; fields absent from the body keep their value",
  scopes: ["alerts:write"],
  body: metricRuleUpdateSchema,
  handler: async ({ organization, params, body, container }) => {
    const rule = await container.resolve(MetricRuleServiceToken).update(organization.id, params.alert_rule_id, body);
    const slugs = await container.resolve(MetricRuleRepositoryToken).projectSlugs(organization.id, rule.project_ids);
    return { body: serializeMetricRule(rule, slugs) };
  },
});

export const deleteMetricRule = defineEndpoint({
  method: "DELETE",
  path: RULE,
  operationId: "metricAlertRules.delete",
  summary: "Delete a metric alert rule and its incident history",
  scopes: ["alerts:write"],
  handler: async ({ organization, params, container }) => {
    await container.resolve(MetricRuleServiceToken).delete(organization.id, params.alert_rule_id);
    return { status: 204 };
  },
});

export const listIncidents = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/alert-rules/{alert_rule_id}/incidents/",
  operationId: "metricAlertRules.incidents",
  summary: "A metric alert rule's incidents, newest first, each with its transitions",
  scopes: ["alerts:read"],
  query: listQuery,
  handler: async ({ organization, params, query, container, url }) => {
    const rule = await container.resolve(MetricRuleServiceToken).require(organization.id, params.alert_rule_id);
    const repository = container.resolve(MetricRuleRepositoryToken);
    const page = await keysetPage((bound) => repository.listIncidents(rule.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (incident) => incident.date_started.getTime(),
      idOf: (incident) => incident.id,
    });
    const activities = await repository.activities(page.rows.map((incident) => incident.id));
    return pageReply(url, page, query.per_page, (incident) =>
      serializeIncident(
        incident,
        rule,
        activities.filter((activity) => activity.incident_id === incident.id),
      ),
    );
  },
});

export const metricRuleEndpoints = [
  createMetricRule,
  listMetricRules,
  getMetricRule,
  updateMetricRule,
  deleteMetricRule,
  listIncidents,
];
