import type { Kysely } from "kysely";
import { unauthenticated } from "../../../auth/authenticate.js";
import { authorizeOrganization, type OrganizationAccess } from "../../../auth/organization-access.js";
import type { Principal } from "../../../auth/principal.js";
import type { Scope } from "../../../auth/scopes.js";
import type { App, AppInstallation, Database } from "../../../db/schema.js";
import { notFound } from "../../../http/errors.js";
import { forbidden } from "../../../http/stages/access.js";
import type { InstallationRepository } from "../installations/repository.js";

/**
 * Authorization for routes whose path does not name the organization (`/svc-apps/{slug}/…`,
 * `/svc-app-installations/{uuid}/…`): the same rules as the pipeline's — an organization the
 * principal may not act in is a 404 (no existence oracle), then a missing scope is a 403.
 */
export async function authorizeIn(
  db: Kysely<Database>,
  principal: Principal | null,
  organization: string | number,
  required: readonly Scope[],
): Promise<OrganizationAccess> {
  if (!principal) throw unauthenticated();
  const access = await authorizeOrganization(db, principal, String(organization));
  if (required.length > 0 && !required.some((scope) => access.scopes.has(scope))) throw forbidden(required);
  return access;
}

interface AccessDeps {
  db: Kysely<Database>;
  repository: InstallationRepository;
  principal: Principal | null;
}

/** An app by slug, authorized in the organization that owns it. */
export async function authorizeApp(
  deps: AccessDeps,
  slug: string,
  required: readonly Scope[],
): Promise<OrganizationAccess & { app: App }> {
  if (!deps.principal) throw unauthenticated();
  const app = await deps.repository.findAppBySlug(slug);
  if (!app) throw notFound();
  return { app, ...(await authorizeIn(deps.db, deps.principal, app.organization_id, required)) };
}

/**
 * An installation by UUID, authorized in its organization. An installation-bound token reaches
 * only its own installation (docs/security.md, "Tokens and scopes"): another one, even in the same
 * organization, is a 404.
 */
export async function authorizeInstallation(
  deps: AccessDeps,
  uuid: string,
  required: readonly Scope[],
): Promise<OrganizationAccess & { installation: AppInstallation }> {
  if (!deps.principal) throw unauthenticated();
  const installation = await deps.repository.findInstallation(uuid);
  if (!installation) throw notFound();
  if (deps.principal.installationId !== null && deps.principal.installationId !== installation.id) throw notFound();
  return { installation, ...(await authorizeIn(deps.db, deps.principal, installation.organization_id, required)) };
}
