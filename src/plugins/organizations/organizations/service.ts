import type { Clock } from "../../../clock.js";
import { randomHex } from "../../../crypto/secrets.js";
import { isUniqueViolation } from "../../../db/errors.js";
import type { Organization, Project } from "../../../db/schema.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { parseOrThrow } from "../../../http/validate.js";
import type { OrganizationRepository } from "./repository.js";
import * as schemas from "./schemas.js";
import {
  serializeOrganization,
  serializeProject,
  serializeProjectKey,
  serializeTeam,
  serializeUser,
} from "./serialize.js";

/** Rethrows a unique violation as a 409 with a readable message. */
async function unique<T>(work: Promise<T>, conflict: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError(409, conflict);
    throw error;
  }
}

/**
 * Tenant provisioning for hosts (`faultline.api.organizations`, `.projects`, `.users`, `.members`,
 * `.teams`), and lookups other feature areas use. Inputs are validated like HTTP bodies.
 */
export class OrganizationService {
  constructor(
    private readonly repository: OrganizationRepository,
    private readonly clock: Clock,
    /** Public base URL (origin + mount prefix) for DSNs, when configured. */
    private readonly publicBaseUrl: URL | null,
  ) {}

  async createOrganization(input: schemas.CreateOrganizationInput) {
    const values = parseOrThrow(schemas.createOrganizationInput, input);
    const organization = await unique(
      this.repository.insertOrganization({
        slug: values.slug,
        name: values.name ?? values.slug,
        plan: values.plan,
        saml_configured: values.samlConfigured,
        scim_enabled: values.scimEnabled,
        date_created: this.clock.now(),
      }),
      `Organization slug "${values.slug}" is already taken`,
    );
    return serializeOrganization(organization);
  }

  async getOrganization(ref: schemas.Reference) {
    const organization = await this.repository.findOrganization(ref);
    return organization ? serializeOrganization(organization) : null;
  }

  async updateOrganization(ref: schemas.Reference, input: schemas.UpdateOrganizationInput) {
    const values = parseOrThrow(schemas.updateOrganizationInput, input);
    const organization = await this.requireOrganization(ref);
    const updated = await this.repository.updateOrganization(organization.id, {
      ...(values.name !== undefined && { name: values.name }),
      ...(values.plan !== undefined && { plan: values.plan }),
      ...(values.samlConfigured !== undefined && { saml_configured: values.samlConfigured }),
      ...(values.scimEnabled !== undefined && { scim_enabled: values.scimEnabled }),
    });
    return serializeOrganization(updated ?? organization);
  }

  async createProject(input: schemas.CreateProjectInput) {
    const values = parseOrThrow(schemas.createProjectInput, input);
    const organization = await this.requireOrganization(values.organization);
    const { project, key } = await unique(
      this.repository.insertProject(
        {
          organization_id: organization.id,
          slug: values.slug,
          name: values.name ?? values.slug,
          platform: values.platform,
          features: values.features,
          date_created: this.clock.now(),
        },
        values.publicKey ?? randomHex(16),
      ),
      `Project slug "${values.slug}" or its DSN key is already taken`,
    );
    return { ...serializeProject(project), keys: [serializeProjectKey(key, this.publicBaseUrl)] };
  }

  async getProject(organizationRef: schemas.Reference, projectRef: schemas.Reference) {
    const organization = await this.requireOrganization(organizationRef);
    const project = await this.repository.findProject(organization.id, projectRef);
    return project ? serializeProject(project) : null;
  }

  /** A project's DSN keys (DSNs built from the configured public URL, else null). */
  async listProjectKeys(organizationRef: schemas.Reference, projectRef: schemas.Reference) {
    const organization = await this.requireOrganization(organizationRef);
    const project = await this.requireProject(organization.id, projectRef);
    const keys = await this.repository.listProjectKeys(organization.id, project.id);
    return keys.map((key) => serializeProjectKey(key, this.publicBaseUrl));
  }

  async createUser(input: schemas.CreateUserInput) {
    const values = parseOrThrow(schemas.createUserInput, input);
    const user = await unique(
      this.repository.insertUser({ ...values, date_created: this.clock.now() }),
      `Username "${values.username}" is already taken`,
    );
    return serializeUser(user);
  }

  async getUser(ref: schemas.Reference) {
    const user = await this.repository.findUser(ref);
    return user ? serializeUser(user) : null;
  }

  async addMember(input: schemas.AddMemberInput) {
    const values = parseOrThrow(schemas.addMemberInput, input);
    const organization = await this.requireOrganization(values.organization);
    const user = await this.repository.findUser(values.user);
    if (!user) throw notFound(`Unknown user ${JSON.stringify(values.user)}`);
    const member = await this.repository.upsertMember(organization.id, user.id, values.role, this.clock.now());
    return { id: String(member.id), user: serializeUser(user), role: member.role, active: member.active };
  }

  async createTeam(input: schemas.CreateTeamInput) {
    const values = parseOrThrow(schemas.createTeamInput, input);
    const organization = await this.requireOrganization(values.organization);
    const team = await unique(
      this.repository.insertTeam({
        organization_id: organization.id,
        slug: values.slug,
        name: values.name ?? values.slug,
        date_created: this.clock.now(),
      }),
      `Team slug "${values.slug}" is already taken`,
    );
    return serializeTeam(team);
  }

  async addTeamMember(input: schemas.AddTeamMemberInput) {
    const values = parseOrThrow(schemas.addTeamMemberInput, input);
    const organization = await this.requireOrganization(values.organization);
    const team = await this.repository.findTeam(organization.id, values.team);
    if (!team) throw notFound(`Unknown team ${JSON.stringify(values.team)}`);
    const user = await this.repository.findUser(values.user);
    const member = user && (await this.repository.findMember(organization.id, user.id));
    if (!member) throw notFound(`User ${JSON.stringify(values.user)} is not a member of this organization`);
    await this.repository.addTeamMember(organization.id, team.id, member.id, this.clock.now());
  }

  async requireOrganization(ref: schemas.Reference): Promise<Organization> {
    const organization = await this.repository.findOrganization(ref);
    if (!organization) throw notFound(`Unknown organization ${JSON.stringify(ref)}`);
    return organization;
  }

  /** A project of this organization by id or slug, else the 404 every API answers. */
  async requireProject(organizationId: number, ref: schemas.Reference): Promise<Project> {
    const project = await this.repository.findProject(organizationId, ref);
    if (!project) throw notFound();
    return project;
  }
}
