import type { DependencyContainer } from "tsyringe";
import { Clock } from "../../../container/tokens.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { IngestSinkToken } from "../tokens.js";

export interface ProjectTarget {
  organization: string | number;
  project: string | number;
}

/**
 * `faultline.api.events.capture`: the host reports an error of its own, by organization and
 * project (id or slug). Trusted code: no DSN key, limits, rate limit or queue bound. Unknown → 404 ApiError.
 * Resolves when the ingest mode acknowledges: stored (direct) or durably queued (queued).
 */
export async function captureInProject(
  container: DependencyContainer,
  target: ProjectTarget,
  event: Record<string, unknown>,
): Promise<{ eventId: string }> {
  const organizations = container.resolve(OrganizationServiceToken);
  const organization = await organizations.requireOrganization(target.organization);
  const project = await organizations.requireProject(organization.id, target.project);
  const ref = { id: project.id, organizationId: organization.id, platform: project.platform };
  return container.resolve(IngestSinkToken).capture(ref, event, { receivedAt: container.resolve(Clock).now() });
}
