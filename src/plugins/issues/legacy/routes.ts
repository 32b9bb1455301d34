import type { Kysely } from "kysely";
import { authorizeOrganization } from "../../../auth/organization-access.js";
import type { Principal } from "../../../auth/principal.js";
import { Db } from "../../../container/tokens.js";
import type { Database } from "../../../db/schema.js";
import type { z } from "zod";
import {
  type AnyEndpoint,
  defineEndpoint,
  type EndpointContext,
  type EndpointDefinition,
} from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { forbidden } from "../../../http/stages/access.js";
import { parseOrThrow } from "../../../http/validate.js";
import { listIssueHashes } from "../events/hashes.js";
import { deleteIssue, getIssue, updateIssue } from "../issue/routes.js";
import { getIssueEvent, listIssueEvents } from "../events/routes.js";
import { getIssueTag, listIssueTags, listIssueTagValues } from "../events/tags.js";

/**
 * Sentry's legacy issue routes, `/api/0/issues/{issue_id}/…` (still what sentry-cli, older
 * integrations and the MCP server's URLs use): the same endpoints as under
 * `/api/0/organizations/{org}/issues/{issue_id}/…`, with the organization found from the issue.
 *
 * The issue is looked up only among the organizations the caller may act in — the one its token
 * is bound to, else its user's active memberships — so another organization's issue id is "not
 * found" exactly like an id that does not exist. Only numeric ids: a short id names a project
 * slug, which two of the caller's organizations may share.
 */

const LEGACY_PREFIX = "/api/0/issues/{issue_id}/";
const ORGANIZATION_PREFIX = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

/** The caller's organization that holds this live issue, if any. */
async function issueOrganization(
  db: Kysely<Database>,
  principal: Principal,
  issueRef: string,
): Promise<number | undefined> {
  if (!/^\d{1,15}$/.test(issueRef)) return undefined;
  let query = db
    .selectFrom("issues")
    .select("issues.organization_id")
    .where("issues.id", "=", Number(issueRef))
    .where("issues.deleted_at", "is", null);
  if (principal.organizationId !== null) query = query.where("issues.organization_id", "=", principal.organizationId);
  else if (principal.userId !== null) {
    const userId = principal.userId;
    query = query.where("issues.organization_id", "in", (eb) =>
      eb
        .selectFrom("organization_members")
        .select("organization_id")
        .where("user_id", "=", userId)
        .where("active", "=", true),
    );
  } else return undefined;
  return (await query.executeTakeFirst())?.organization_id;
}

/** The context of an endpoint whose path names an organization. */
type OrganizationContext = EndpointContext<"{organization_id_or_slug}", Record<string, string>, unknown, unknown>;

type LegacyPath<Path extends string> = Path extends `${typeof ORGANIZATION_PREFIX}${infer Rest}`
  ? `${typeof LEGACY_PREFIX}${Rest}`
  : never;

/** `issues.get` → `issues.legacyGet`, in the types as at run time (the twin's place in `faultline.api`). */
type LegacyOperationId<Id extends string> = Id extends `${infer Area}.${infer Rest}`
  ? `${Area}.legacy${Capitalize<Rest>}`
  : string;

/** `issues.get` → `issues.legacyGet`: the same area of the in-process API. */
function legacyOperationId<Id extends string>(operationId: Id): LegacyOperationId<Id> {
  const [area, first = "", ...rest] = operationId.split(".");
  return [area, `legacy${first.charAt(0).toUpperCase()}${first.slice(1)}`, ...rest].join(".") as LegacyOperationId<Id>;
}

/**
 * The legacy twin of an organization-scoped issue endpoint (its path parameters are checked once
 * the organization is known); exported for plugins adding issue endpoints (user reports).
 */
export function legacyTwin<
  Path extends string,
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  R,
  Id extends string,
>(
  endpoint: EndpointDefinition<Path, P, Q, B, R, Id>,
): EndpointDefinition<LegacyPath<Path>, undefined, Q, B, R, LegacyOperationId<Id>> {
  if (!endpoint.path.startsWith(ORGANIZATION_PREFIX))
    throw new Error(`${endpoint.operationId} is not an issue endpoint`);
  const { params: _params, ...rest } = endpoint as AnyEndpoint;
  return defineEndpoint({
    ...rest,
    path: `${LEGACY_PREFIX}${endpoint.path.slice(ORGANIZATION_PREFIX.length)}` as LegacyPath<Path>,
    operationId: legacyOperationId(endpoint.operationId),
    summary: `${endpoint.summary ?? endpoint.operationId} (legacy path: the organization is the issue's)`,
    handler: async (ctx) => {
      const principal = ctx.principal as Principal;
      const db = ctx.container.resolve(Db);
      const params = ctx.params as Record<string, string>;
      const organizationId = await issueOrganization(db, principal, params.issue_id ?? "");
      if (organizationId === undefined) throw notFound();
      // The role limits what a user may do in that organization, as on the organization path.
      const access = await authorizeOrganization(db, principal, String(organizationId));
      const required = endpoint.scopes ?? [];
      if (required.length > 0 && !required.some((scope) => access.scopes.has(scope))) throw forbidden(required);
      const organizationParams = { ...params, organization_id_or_slug: access.organization.slug };
      const validated = (
        endpoint.params ? parseOrThrow(endpoint.params, organizationParams) : organizationParams
      ) as Record<string, string>;
      const scoped: OrganizationContext = {
        ...(ctx as unknown as OrganizationContext),
        organization: access.organization,
        scopes: access.scopes,
        params: validated,
      };
      return (endpoint as AnyEndpoint).handler(scoped);
    },
  }) as EndpointDefinition<LegacyPath<Path>, undefined, Q, B, R, LegacyOperationId<Id>>;
}

export const legacyGetIssue = legacyTwin(getIssue);
export const legacyUpdateIssue = legacyTwin(updateIssue);
export const legacyDeleteIssue = legacyTwin(deleteIssue);
export const legacyListIssueEvents = legacyTwin(listIssueEvents);
export const legacyGetIssueEvent = legacyTwin(getIssueEvent);
export const legacyListIssueTags = legacyTwin(listIssueTags);
export const legacyGetIssueTag = legacyTwin(getIssueTag);
export const legacyListIssueTagValues = legacyTwin(listIssueTagValues);
export const legacyListIssueHashes = legacyTwin(listIssueHashes);

export const legacyIssueEndpoints = [
  legacyGetIssue,
  legacyUpdateIssue,
  legacyDeleteIssue,
  legacyListIssueEvents,
  legacyGetIssueEvent,
  legacyListIssueTags,
  legacyGetIssueTag,
  legacyListIssueTagValues,
  legacyListIssueHashes,
];
