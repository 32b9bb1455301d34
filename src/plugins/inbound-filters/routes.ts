import { z } from "zod";
import { defineEndpoint } from "../../http/endpoint.js";
import { badRequest, notFound } from "../../http/errors.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { ALL_LEGACY_FAMILIES, LEGACY_BROWSER_SUBFILTERS } from "./browsers.js";
import type { StoredFilters } from "./service.js";
import { InboundFilterServiceToken } from "./tokens.js";

const FILTERS = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/filters/";
const FILTER = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/filters/{filter_id}/";

/** The filters Sentry lists by id, with its names and descriptions; each maps to one stored setting. */
const FILTER_DEFINITIONS = {
  "browser-extensions": {
    name: "Filter out errors known to be caused by browser extensions",
    description: "Certain browser extensions will inject inline scripts and are known to cause errors.",
  },
  localhost: {
    name: "Filter out events coming from localhost",
    description: "This applies to both IPv4 (``127.0.0.1``) and IPv6 (``::1``) addresses.",
  },
  "legacy-browsers": {
    name: "Filter out known errors from legacy browsers",
    description:
      "Older browsers often give less accurate information, and while they may report valid issues, the context to understand them is incorrect or missing.",
  },
  "web-crawlers": {
    name: "Filter out known web crawlers",
    description:
      "Some crawlers may execute pages in incompatible ways which then cause errors that are unlikely to be seen by a normal user.",
  },
} as const;

type FilterId = keyof typeof FILTER_DEFINITIONS;

const TOGGLES = {
  "browser-extensions": "browserExtensions",
  localhost: "localhost",
  "web-crawlers": "webCrawlers",
} as const satisfies Record<Exclude<FilterId, "legacy-browsers">, keyof StoredFilters>;

/** One entry of Sentry's list: `active` is a boolean, or for legacy browsers the subfilters turned on (false when none). */
function serializeFilter(id: FilterId, filters: StoredFilters) {
  const active =
    id === "legacy-browsers" ? filters.legacyBrowsers.length > 0 && filters.legacyBrowsers : filters[TOGGLES[id]];
  const { name, description } = FILTER_DEFINITIONS[id];
  return { id, active, description, name, hello: `${id} - ${name}` };
}

function filterIdOf(segment: string): FilterId {
  if (!Object.hasOwn(FILTER_DEFINITIONS, segment)) throw notFound(`Unknown filter ${JSON.stringify(segment)}`);
  return segment as FilterId;
}

const updateFilterBody = z.object({
  active: z.boolean({ error: "must be true or false" }).optional(),
  subfilters: z
    .array(z.enum(LEGACY_BROWSER_SUBFILTERS, { error: `must be among ${LEGACY_BROWSER_SUBFILTERS.join(", ")}` }))
    .optional(),
});

export const listFilters = defineEndpoint({
  method: "GET",
  path: FILTERS,
  operationId: "inboundFilters.list",
  summary: "List a project's inbound data filters and whether each is on",
  scopes: ["project:read"],
  handler: async ({ organization, params, container }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const filters = await container.resolve(InboundFilterServiceToken).read(project.id);
    const ids = Object.keys(FILTER_DEFINITIONS) as FilterId[];
    const body = ids.map((id) => serializeFilter(id, filters)).sort((a, b) => a.name.localeCompare(b.name));
    return { body };
  },
});

export const getFilter = defineEndpoint({
  method: "GET",
  path: FILTER,
  operationId: "inboundFilters.get",
  scopes: ["project:read"],
  handler: async ({ organization, params, container }) => {
    const id = filterIdOf(params.filter_id);
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    return { body: serializeFilter(id, await container.resolve(InboundFilterServiceToken).read(project.id)) };
  },
});

/**
 * Turns a filter on or off (`active`); the legacy-browsers filter takes the `subfilters` to turn
 * on (or `active`: true for every browser family, false for none). 204, as Sentry answers.
 */
export const updateFilter = defineEndpoint({
  method: "PUT",
  path: FILTER,
  operationId: "inboundFilters.update",
  summary: "Turn a project's inbound data filter on or off",
  scopes: ["project:write"],
  body: updateFilterBody,
  handler: async ({ organization, params, body, container }) => {
    const id = filterIdOf(params.filter_id);
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    await container.resolve(InboundFilterServiceToken).update(project.id, changeOf(id, body));
    return { status: 204 };
  },
});

function changeOf(id: FilterId, body: z.output<typeof updateFilterBody>): Partial<StoredFilters> {
  if (id === "legacy-browsers") {
    if (body.subfilters !== undefined) return { legacyBrowsers: body.subfilters };
    if (body.active !== undefined) return { legacyBrowsers: body.active ? [...ALL_LEGACY_FAMILIES] : [] };
    throw badRequest("Invalid request: subfilters: required (or active)");
  }
  if (body.subfilters !== undefined)
    throw badRequest(`Invalid request: subfilters: only the legacy-browsers filter has subfilters`);
  if (body.active === undefined) throw badRequest("Invalid request: active: required");
  return { [TOGGLES[id]]: body.active };
}

export const inboundFilterEndpoints = [listFilters, getFilter, updateFilter] as const;
