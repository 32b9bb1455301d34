import type { DependencyContainer } from "tsyringe";
import { defineEndpoint } from "../../http/endpoint.js";
import { openApiDocument, RouteTable, servedDocument } from "../../http/openapi.js";

const documents = new WeakMap<DependencyContainer, Record<string, unknown>>();

/** The instance's OpenAPI 3.1 document, built once per instance from its routes. */
export function documentOf(container: DependencyContainer): Record<string, unknown> {
  let document = documents.get(container);
  if (!document)
    documents.set(container, (document = openApiDocument(container.resolve(RouteTable), { version: "0" })));
  return document;
}

export const getOpenApi = defineEndpoint({
  method: "GET",
  path: "/api/0/openapi.json",
  operationId: "openapi.get",
  summary: "This API's OpenAPI 3.1 document (every route of this instance, with its scopes and errors)",
  auth: "none",
  handler: ({ container, url, basePath }) => ({ body: servedDocument(documentOf(container), url.origin, basePath) }),
});
