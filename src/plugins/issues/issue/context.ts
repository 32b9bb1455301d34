import { Clock, Db, Options } from "../../../container/tokens.js";
import type { Principal } from "../../../auth/principal.js";
import type { Organization } from "../../../db/schema.js";
import type { DependencyContainer } from "tsyringe";
import { requestBaseUrl } from "../../organizations/index.js";
import { PublicBaseUrl } from "../../organizations/tokens.js";
import type { ListPresentation } from "../list/presentation.js";
import type { SerializeContext } from "./serialize.js";
import { issueLinks } from "../urls.js";
import { type IssueUserReportCounts, IssueUserReportCountsToken } from "../tokens.js";

/**
 * What the issue serializers need, from an endpoint's context. The permalink is the host's
 * template when configured, else the issue's absolute API URL on the configured public URL or
 * the request's own origin (which the adapters take from X-Forwarded-* only behind a trusted proxy).
 */
export function serializeContext(
  ctx: {
    container: DependencyContainer;
    principal: Principal | null;
    organization: Organization;
    url: URL;
    basePath: string;
  },
  presentation: ListPresentation | null,
): SerializeContext {
  const base = requestBaseUrl(ctx.container.resolve(PublicBaseUrl), ctx.url, ctx.basePath);
  const template = ctx.container.resolve(Options).permalinkTemplate ?? null;
  const organizationSlug = ctx.organization.slug;
  return {
    db: ctx.container.resolve(Db),
    userId: ctx.principal?.userId ?? null,
    now: ctx.container.resolve(Clock).now(),
    stats: presentation?.stats ?? null,
    window: presentation?.window ?? null,
    permalink: (issue) => issueLinks(base, template, organizationSlug, issue).web_url,
    organizationSlug,
    userReports: userReportCounts(ctx.container),
  };
}

/** The user reports' counts, when a plugin (user-feedback) registered them. */
export function userReportCounts(container: DependencyContainer): IssueUserReportCounts | null {
  return container.isRegistered(IssueUserReportCountsToken, true)
    ? container.resolve(IssueUserReportCountsToken)
    : null;
}
