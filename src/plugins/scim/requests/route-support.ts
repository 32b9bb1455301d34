import type { DependencyContainer } from "tsyringe";
import type { Principal } from "../../../auth/principal.js";
import { Db } from "../../../container/tokens.js";
import type { Organization } from "../../../db/schema.js";
import type { Actor } from "../../../events/event-bus.js";
import { PublicBaseUrl } from "../../organizations/tokens.js";
import type { ScimCall } from "./call.js";
import { assertJsonBody } from "../errors.js";
import { assertScimAvailable } from "../setup/gating.js";

/** What SCIM handlers use of the endpoint context (every SCIM path names the organization). */
export interface ScimRouteContext {
  request: Request;
  url: URL;
  basePath: string;
  organization: Organization;
  principal: Principal;
  container: DependencyContainer;
}

const SCIM_CLIENT: Actor = { type: "application", id: "scim", name: "SCIM" };

async function actorOf(ctx: ScimRouteContext): Promise<Actor> {
  if (ctx.principal.userId === null) return SCIM_CLIENT;
  const user = await ctx.container
    .resolve(Db)
    .selectFrom("users")
    .select(["id", "username", "name"])
    .where("id", "=", ctx.principal.userId)
    .executeTakeFirst();
  return user ? { type: "user", id: String(user.id), name: user.name || user.username } : SCIM_CLIENT;
}

/**
 * The start of every SCIM handler: the organization must be allowed SCIM (403 naming what is
 * missing), a body must be JSON (docs/scim.md, "6. Discovery and errors"), and the call gets its
 * base URL and actor.
 */
export async function scimCall(ctx: ScimRouteContext): Promise<ScimCall> {
  assertScimAvailable(ctx.organization);
  if (ctx.request.method !== "GET" && ctx.request.method !== "HEAD" && ctx.request.method !== "DELETE")
    assertJsonBody(ctx.request);
  const configured = ctx.container.resolve(PublicBaseUrl);
  const origin = configured ? configured.href.replace(/\/+$/, "") : `${ctx.url.origin}${ctx.basePath}`;
  return {
    organization: ctx.organization,
    baseUrl: `${origin}/api/0/organizations/${encodeURIComponent(ctx.organization.slug)}/scim/v2`,
    actor: await actorOf(ctx),
  };
}
