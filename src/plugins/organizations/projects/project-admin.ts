import type { Kysely } from "kysely";
import type { Principal } from "../../../auth/principal.js";
import type { Clock } from "../../../clock.js";
import { randomHex } from "../../../crypto/secrets.js";
import { isUniqueViolation } from "../../../db/errors.js";
import type { Database, Organization, Project, ProjectKey } from "../../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import { type Actor, type EventBus, SYSTEM_ACTOR } from "../../../events/event-bus.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { slugify } from "../../../http/format.js";
import type { OrganizationRepository } from "../organizations/repository.js";
import type { CreateKeyBody, RateLimitBody, UpdateKeyBody, UpdateProjectBody } from "../organizations/schemas.js";

declare module "../../../events/event-bus.js" {
  interface DomainEventMap {
    /**
     * DSN keys changed (renamed, (de)activated, rate limit set, deleted, or their project deleted):
     * whoever caches keys (ingest) forgets these. Emitted inside the change's transaction.
     */
    "project_keys.changed": { projectId: number; publicKeys: string[] };
  }
}

/** Who caused a change, for the domain event (the key cache does not care; an audit subscriber might). */
function actorOf(principal: Principal | null): Actor {
  if (principal?.userId != null) return { type: "user", id: String(principal.userId), name: String(principal.userId) };
  return SYSTEM_ACTOR;
}

/** The stored form of Sentry's `rateLimit`: null removes the limit. */
function rateLimitColumns(rateLimit: RateLimitBody): Pick<ProjectKey, "rate_limit_per_minute" | "rate_limit_window"> {
  return rateLimit === null
    ? { rate_limit_per_minute: null, rate_limit_window: null }
    : { rate_limit_per_minute: rateLimit.count, rate_limit_window: rateLimit.window };
}

/**
 * Project and DSN-key administration over HTTP (Sentry's project and client-key endpoints).
 * Every query is scoped by the organization the pipeline authorized; a project, team or key of
 * another organization is the same 404 as one that does not exist.
 */
export class ProjectAdminService {
  constructor(
    private readonly repository: OrganizationRepository,
    private readonly db: () => Kysely<Database>,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  async createProject(
    organization: Organization,
    teamRef: string,
    body: { name: string; slug?: string | undefined; platform?: string | null | undefined },
  ) {
    // The team only has to exist here: Faultline does not link teams to projects.
    if (!(await this.repository.findTeam(organization.id, teamRef))) throw notFound();
    const derived = slugify(body.name);
    const slug = body.slug ?? (/^\d+$/.test(derived) ? `project-${derived}` : derived);
    const { project } = await this.#unique(
      this.repository.insertProject(
        {
          organization_id: organization.id,
          slug,
          name: body.name,
          platform: body.platform ?? null,
          features: [],
          date_created: this.clock.now(),
        },
        randomHex(16),
      ),
      `A project with the slug "${slug}" already exists in this organization`,
    );
    return project;
  }

  /**
   * Changes the project's own fields and, in the same transaction, whatever `alsoSave` writes
   * (the plugins' project settings): both commit, or neither.
   */
  async updateProject(
    organization: Organization,
    project: Project,
    body: UpdateProjectBody,
    alsoSave: (scope: TransactionScope, updated: Project) => Promise<void> = async () => {},
  ): Promise<Project> {
    const columns = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.slug !== undefined && { slug: body.slug }),
      ...(body.platform !== undefined && { platform: body.platform }),
    };
    return this.#unique(
      runInTransaction(this.db(), async (scope) => {
        const updated = await this.repository.updateProject(scope.trx, organization.id, project.id, columns);
        if (!updated) throw notFound();
        await alsoSave(scope, updated);
        return updated;
      }),
      `A project with the slug "${body.slug}" already exists in this organization`,
    );
  }

  async deleteProject(organization: Organization, project: Project, principal: Principal | null): Promise<void> {
    await runInTransaction(this.db(), async (scope) => {
      const publicKeys = await this.repository.deleteProject(scope.trx, organization.id, project.id);
      await this.#keysChanged(scope, organization, project.id, publicKeys, principal);
    });
  }

  async requireKey(organization: Organization, project: Project, ref: string): Promise<ProjectKey> {
    const key = await this.repository.findProjectKey(organization.id, project.id, ref);
    if (!key) throw notFound();
    return key;
  }

  async createKey(organization: Organization, project: Project, body: CreateKeyBody): Promise<ProjectKey> {
    return this.repository.insertProjectKey({
      organization_id: organization.id,
      project_id: project.id,
      name: body.name ?? "Default",
      public_key: randomHex(16),
      is_active: true,
      date_created: this.clock.now(),
      ...rateLimitColumns(body.rateLimit ?? null),
    });
  }

  async updateKey(
    organization: Organization,
    project: Project,
    ref: string,
    body: UpdateKeyBody,
    principal: Principal | null,
  ): Promise<ProjectKey> {
    const key = await this.requireKey(organization, project, ref);
    return runInTransaction(this.db(), async (scope) => {
      const updated = await this.repository.updateProjectKey(scope.trx, organization.id, key.id, {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.isActive !== undefined && { is_active: body.isActive }),
        ...(body.rateLimit !== undefined && rateLimitColumns(body.rateLimit)),
      });
      if (!updated) throw notFound();
      await this.#keysChanged(scope, organization, project.id, [updated.public_key], principal);
      return updated;
    });
  }

  async deleteKey(
    organization: Organization,
    project: Project,
    ref: string,
    principal: Principal | null,
  ): Promise<void> {
    const key = await this.requireKey(organization, project, ref);
    await runInTransaction(this.db(), async (scope) => {
      const deleted = await this.repository.deleteProjectKey(scope.trx, organization.id, key.id);
      if (!deleted) throw notFound();
      await this.#keysChanged(scope, organization, project.id, [deleted.public_key], principal);
    });
  }

  async #keysChanged(
    scope: Parameters<EventBus["emit"]>[0],
    organization: Organization,
    projectId: number,
    publicKeys: string[],
    principal: Principal | null,
  ) {
    if (publicKeys.length === 0) return;
    await this.events.emit(scope, {
      name: "project_keys.changed",
      organizationId: organization.id,
      actor: actorOf(principal),
      occurredAt: this.clock.now(),
      payload: { projectId, publicKeys },
    });
  }

  async #unique<T>(work: Promise<T>, conflict: string): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, conflict);
      throw error;
    }
  }
}
