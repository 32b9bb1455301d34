import { defineEndpoint } from "../../../http/endpoint.js";
import { resourceTypes, schemaResources, serviceProviderConfig } from "./documents.js";
import { scimError, scimResponse } from "../errors.js";
import { scimCall } from "../requests/route-support.js";
import { listResponse } from "../resources/serialize.js";

// Any token that may see the organization may read these; other methods → 405 (the router's Allow header).

export const getServiceProviderConfig = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/ServiceProviderConfig",
  operationId: "scim.serviceProviderConfig",
  summary: "SCIM: what this service provider supports",
  handler: async (ctx) => scimResponse(ctx.request, serviceProviderConfig((await scimCall(ctx)).baseUrl)),
});

export const listResourceTypes = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/ResourceTypes",
  operationId: "scim.resourceTypes.list",
  summary: "SCIM: resource types (User, Group)",
  handler: async (ctx) => {
    const types = resourceTypes((await scimCall(ctx)).baseUrl);
    return scimResponse(ctx.request, listResponse(types, types.length, 1));
  },
});

export const getResourceType = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/ResourceTypes/{name}",
  operationId: "scim.resourceTypes.get",
  summary: "SCIM: one resource type",
  handler: async (ctx) => {
    const type = resourceTypes((await scimCall(ctx)).baseUrl).find(
      (candidate) => candidate.id.toLowerCase() === ctx.params.name.toLowerCase(),
    );
    if (!type) throw scimError(404, null, `Resource type ${JSON.stringify(ctx.params.name)} not found`);
    return scimResponse(ctx.request, type);
  },
});

export const listSchemas = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Schemas",
  operationId: "scim.schemas.list",
  summary: "SCIM: the schemas and attributes supported",
  handler: async (ctx) => {
    const schemas = schemaResources((await scimCall(ctx)).baseUrl);
    return scimResponse(ctx.request, listResponse(schemas, schemas.length, 1));
  },
});

export const getSchema = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Schemas/{schema_id}",
  operationId: "scim.schemas.get",
  summary: "SCIM: one schema",
  handler: async (ctx) => {
    const schema = schemaResources((await scimCall(ctx)).baseUrl).find(
      (candidate) => candidate.id.toLowerCase() === ctx.params.schema_id.toLowerCase(),
    );
    if (!schema) throw scimError(404, null, `Schema ${JSON.stringify(ctx.params.schema_id)} not found`);
    return scimResponse(ctx.request, schema);
  },
});

export const discoveryEndpoints = [
  getServiceProviderConfig,
  listResourceTypes,
  getResourceType,
  listSchemas,
  getSchema,
];
