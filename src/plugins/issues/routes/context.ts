import { Clock, Db, Options } from "../../../container/tokens.js";
import type { Principal } from "../../../auth/principal.js";
import type { Organization } from "../../../db/schema.js";
import type { DependencyContainer } from "tsyringe";
import type { SerializeContext } from "../serialize/issue.js";

/** What the issue serializers need, from an endpoint's context. */
export function serializeContext(
  ctx: { container: DependencyContainer; principal: Principal | null; organization: Organization },
  statsPeriod: "24h" | "14d" | null,
): SerializeContext {
  return {
    db: ctx.container.resolve(Db),
    userId: ctx.principal?.userId ?? null,
    now: ctx.container.resolve(Clock).now(),
    statsPeriod,
    permalinkTemplate: ctx.container.resolve(Options).permalinkTemplate ?? null,
    organizationSlug: ctx.organization.slug,
  };
}
