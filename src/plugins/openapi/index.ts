import { definePlugin } from "../../plugin/plugin.js";
import { getOpenApi } from "./routes.js";

/** The API's description: `GET /api/0/openapi.json`, generated from every route of the instance. */
export const openApiPlugin = definePlugin({
  id: "openapi",
  endpoints: [getOpenApi],
});

export { documentOf } from "./routes.js";
