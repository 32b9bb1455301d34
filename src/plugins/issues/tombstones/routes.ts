import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { IssueTombstonesToken } from "../tokens.js";
import { serializeTombstone } from "./serialize.js";

const TOMBSTONES = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/tombstones/";

/** Sentry's discarded issues of a project, newest first (docs/issues.md, "Discard"). */
export const listTombstones = defineEndpoint({
  method: "GET",
  path: TOMBSTONES,
  operationId: "projects.tombstones",
  summary: "List a project's discarded issues (tombstones), whose events are refused at accept",
  scopes: ["project:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const tombstones = container.resolve(IssueTombstonesToken);
    const page = await keysetPage((bound) => tombstones.list(organization.id, project.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (row) => row.date_added.getTime(),
      idOf: (row) => Number(row.id),
    });
    return pageReply(url, page, query.per_page, serializeTombstone);
  },
});

/** Undiscards: the tombstone's hashes are accepted again, and their next event forms a new issue. */
export const deleteTombstone = defineEndpoint({
  method: "DELETE",
  path: `${TOMBSTONES}{tombstone_id}/`,
  operationId: "projects.deleteTombstone",
  summary: "Remove a tombstone: events of the discarded issue's hashes are accepted again",
  scopes: ["project:admin"],
  handler: async ({ organization, params, container }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const removed = await container
      .resolve(IssueTombstonesToken)
      .remove(organization.id, project.id, params.tombstone_id);
    if (!removed) throw notFound();
    return { status: 204 };
  },
});
