import { definePlugin } from "../../plugin/plugin.js";
import type { FirstPartyEndpointApi } from "./api.js";
import { getOpenApi } from "./routes.js";

/**
 * The API's description: `GET /api/0/openapi.json`, generated from every route of the instance.
 * Its type parameter carries the types of the endpoint functions `buildFaultline` adds to
 * `faultline.api` (it has no `api()` of its own).
 */
export const openApiPlugin = definePlugin<FirstPartyEndpointApi>({
  id: "openapi",
  endpoints: [getOpenApi],
});

export { documentOf } from "./routes.js";
export type { FirstPartyEndpoints } from "./api.js";
