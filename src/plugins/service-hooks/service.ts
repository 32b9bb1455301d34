import type { Clock } from "../../clock.js";
import { randomHex } from "../../crypto/secrets.js";
import type { Project } from "../../db/schema.js";
import type { ServiceHook } from "./tables.js";
import { checkDestination } from "../../delivery/ssrf.js";
import { ApiError, fieldErrors, notFound } from "../../http/errors.js";
import type { OrganizationService } from "../organizations/index.js";
import type { ServiceHookRepository } from "./repository.js";

const FEATURE_DISABLED = "The servicehooks feature is not enabled for this project";

/** Service hook management: the feature gate, the SSRF check of URLs, secrets shown once. */
export class ServiceHookService {
  constructor(
    private readonly repository: ServiceHookRepository,
    private readonly organizations: OrganizationService,
    private readonly clock: Clock,
    private readonly allowPrivateNetworks: boolean,
  ) {}

  /** The project named in the path, which must have the `servicehooks` feature. */
  async requireProject(organizationId: number, projectRef: string): Promise<Project> {
    const project = await this.organizations.requireProject(organizationId, projectRef);
    if (!project.features.includes("servicehooks")) throw new ApiError(403, FEATURE_DISABLED);
    return project;
  }

  async create(project: Project, input: { url: string; events: string[] }): Promise<ServiceHook> {
    await this.checkUrl(input.url);
    return this.repository.insert({
      id: randomHex(16),
      organization_id: project.organization_id,
      project_id: project.id,
      url: input.url,
      events: input.events,
      secret: randomHex(32),
      date_created: this.clock.now(),
    });
  }

  async require(project: Project, id: string): Promise<ServiceHook> {
    const hook = /^[0-9a-f]{32}$/.test(id)
      ? await this.repository.find(project.organization_id, project.id, id)
      : undefined;
    if (!hook) throw notFound();
    return hook;
  }

  async update(
    project: Project,
    id: string,
    input: { url?: string; events?: string[]; isActive?: boolean },
  ): Promise<ServiceHook> {
    const hook = await this.require(project, id);
    if (input.url !== undefined) await this.checkUrl(input.url);
    const updated = await this.repository.update(project.organization_id, project.id, hook.id, {
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: input.events }),
      ...(input.isActive !== undefined && { status: input.isActive ? "active" : "disabled" }),
    });
    return updated ?? hook;
  }

  async delete(project: Project, id: string): Promise<void> {
    const hook = await this.require(project, id);
    await this.repository.delete(project.organization_id, hook.id, this.clock.now());
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await checkDestination(url, { allowPrivateNetworks: this.allowPrivateNetworks });
    if (problem) throw fieldErrors({ url: [`URL ${problem}`] });
  }
}
