import type { Kysely } from "kysely";
import { findOrganization } from "../../auth/organization-access.js";
import { updateIfChanged } from "../../db/changes.js";
import type { Database, MemberRole, Organization, Project, Team, User } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";
import type { Reference } from "./schemas.js";

const MAX_INT4 = 2_147_483_647;
const numericId = (ref: Reference): number | null => {
  const id = typeof ref === "number" ? ref : /^\d+$/.test(ref) ? Number(ref) : null;
  return id !== null && id <= MAX_INT4 ? id : null;
};

/**
 * Queries over organizations and what belongs to them. Every method below the organization
 * level takes the organization id first, so an unscoped query cannot be written.
 */
export class OrganizationRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  findOrganization(ref: Reference): Promise<Organization | undefined> {
    return findOrganization(this.db(), String(ref));
  }

  insertOrganization(values: Omit<Organization, "id">): Promise<Organization> {
    return this.db().insertInto("organizations").values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Sets the given columns; with none given, no UPDATE runs and the organization is read as it is. */
  updateOrganization(organizationId: number, values: Partial<Omit<Organization, "id">>): Promise<Organization | undefined> {
    return updateIfChanged(
      values,
      (columns) => this.db().updateTable("organizations").set(columns).where("id", "=", organizationId).returningAll().executeTakeFirst(),
      () => this.db().selectFrom("organizations").selectAll().where("id", "=", organizationId).executeTakeFirst(),
    );
  }

  findProject(organizationId: number, ref: Reference): Promise<Project | undefined> {
    const id = numericId(ref);
    const query = this.db().selectFrom("projects").selectAll().where("organization_id", "=", organizationId);
    return (id !== null ? query.where("id", "=", id) : query.where("slug", "=", String(ref))).executeTakeFirst();
  }

  listProjects(organizationId: number, bound: KeysetBound): Promise<Project[]> {
    const condition = keysetCondition(bound, "date_created", "id");
    let query = this.db().selectFrom("projects").selectAll().where("organization_id", "=", organizationId);
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  /** Creates a project with its first DSN key, atomically. */
  async insertProject(values: Omit<Project, "id" | "next_short_id" | "retention_days">, publicKey: string) {
    return this.db()
      .transaction()
      .execute(async (trx) => {
        const project = await trx.insertInto("projects").values(values).returningAll().executeTakeFirstOrThrow();
        const key = await trx
          .insertInto("project_keys")
          .values({ organization_id: project.organization_id, project_id: project.id, name: "Default", public_key: publicKey, is_active: true, date_created: values.date_created })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { project, key };
      });
  }

  listProjectKeys(organizationId: number, projectId: number) {
    return this.db()
      .selectFrom("project_keys")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .orderBy("id")
      .execute();
  }

  /** A user by numeric id, username or email (case-insensitive for the last two). */
  findUser(ref: Reference): Promise<User | undefined> {
    const id = numericId(ref);
    const query = this.db().selectFrom("users").selectAll();
    if (id !== null) return query.where("id", "=", id).executeTakeFirst();
    const lowered = String(ref).toLowerCase();
    return query
      .where((eb) => eb.or([eb(eb.fn("lower", ["username"]), "=", lowered), eb(eb.fn("lower", ["email"]), "=", lowered)]))
      .orderBy("id")
      .executeTakeFirst();
  }

  insertUser(values: Omit<User, "id">): Promise<User> {
    return this.db().insertInto("users").values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Adds (or re-roles) a member; membership is unique per organization and user. */
  upsertMember(organizationId: number, userId: number, role: MemberRole, now: Date) {
    return this.db()
      .insertInto("organization_members")
      .values({ organization_id: organizationId, user_id: userId, role, active: true, date_created: now })
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doUpdateSet({ role }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  findMember(organizationId: number, userId: number) {
    return this.db()
      .selectFrom("organization_members")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
  }

  insertTeam(values: Omit<Team, "id">): Promise<Team> {
    return this.db().insertInto("teams").values(values).returningAll().executeTakeFirstOrThrow();
  }

  findTeam(organizationId: number, ref: Reference): Promise<Team | undefined> {
    const id = numericId(ref);
    const query = this.db().selectFrom("teams").selectAll().where("organization_id", "=", organizationId);
    return (id !== null ? query.where("id", "=", id) : query.where("slug", "=", String(ref))).executeTakeFirst();
  }

  addTeamMember(organizationId: number, teamId: number, memberId: number, now: Date) {
    return this.db()
      .insertInto("team_members")
      .values({ organization_id: organizationId, team_id: teamId, member_id: memberId, date_created: now })
      .onConflict((oc) => oc.columns(["team_id", "member_id"]).doNothing())
      .execute();
  }
}
