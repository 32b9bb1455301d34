import { z } from "zod";
import { defineEndpoint } from "../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../http/pagination.js";
import { InstallationRepositoryToken } from "./tokens.js";
import { serializeInstallation } from "./serialize.js";

export const listInstallations = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/svc-app-installations/",
  operationId: "installations.list",
  summary: "List the apps installed in an organization, newest first",
  scopes: ["org:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(InstallationRepositoryToken);
    const page = await keysetPage(
      (bound) => repository.listInstallations(organization.id, bound),
      { cursor: query.cursor, limit: query.per_page, keyOf: (row) => row.date_created.getTime(), idOf: (row) => row.id },
    );
    return pageReply(url, page, query.per_page, serializeInstallation);
  },
});
