import { type Kysely, sql } from "kysely";
import { findOrganization } from "../../../auth/organization-access.js";
import { updateIfChanged } from "../../../db/changes.js";
import type { Database, MemberRole, Organization, Project, ProjectKey, Team, User } from "../../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
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
  updateOrganization(
    organizationId: number,
    values: Partial<Omit<Organization, "id">>,
  ): Promise<Organization | undefined> {
    return updateIfChanged(
      values,
      (columns) =>
        this.db()
          .updateTable("organizations")
          .set(columns)
          .where("id", "=", organizationId)
          .returningAll()
          .executeTakeFirst(),
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
          .values({
            organization_id: project.organization_id,
            project_id: project.id,
            name: "Default",
            public_key: publicKey,
            is_active: true,
            date_created: values.date_created,
          })
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

  /** A project's key by numeric id or public key (Sentry names keys by their public key). */
  findProjectKey(organizationId: number, projectId: number, ref: string): Promise<ProjectKey | undefined> {
    const id = numericId(ref);
    const query = this.db()
      .selectFrom("project_keys")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId);
    return (id !== null ? query.where("id", "=", id) : query.where("public_key", "=", ref)).executeTakeFirst();
  }

  insertProjectKey(values: Omit<ProjectKey, "id">): Promise<ProjectKey> {
    return this.db().insertInto("project_keys").values(values).returningAll().executeTakeFirstOrThrow();
  }

  updateProjectKey(
    trx: Kysely<Database>,
    organizationId: number,
    keyId: number,
    values: Partial<Pick<ProjectKey, "name" | "is_active" | "rate_limit_per_minute" | "rate_limit_window">>,
  ) {
    return updateIfChanged(
      values,
      (columns) =>
        trx
          .updateTable("project_keys")
          .set(columns)
          .where("organization_id", "=", organizationId)
          .where("id", "=", keyId)
          .returningAll()
          .executeTakeFirst(),
      () =>
        trx
          .selectFrom("project_keys")
          .selectAll()
          .where("organization_id", "=", organizationId)
          .where("id", "=", keyId)
          .executeTakeFirst(),
    );
  }

  deleteProjectKey(trx: Kysely<Database>, organizationId: number, keyId: number) {
    return trx
      .deleteFrom("project_keys")
      .where("organization_id", "=", organizationId)
      .where("id", "=", keyId)
      .returning("public_key")
      .executeTakeFirst();
  }

  /** In `trx`, the transaction that also saves the plugins' project settings (projects/project-settings.ts). */
  updateProject(
    trx: Kysely<Database>,
    organizationId: number,
    projectId: number,
    values: Partial<Pick<Project, "name" | "slug" | "platform">>,
  ): Promise<Project | undefined> {
    const scoped = (db: Kysely<Database>) =>
      db.selectFrom("projects").selectAll().where("organization_id", "=", organizationId).where("id", "=", projectId);
    return updateIfChanged(
      values,
      (columns) =>
        trx
          .updateTable("projects")
          .set(columns)
          .where("organization_id", "=", organizationId)
          .where("id", "=", projectId)
          .returningAll()
          .executeTakeFirst(),
      () => scoped(trx).executeTakeFirst(),
    );
  }

  /** Deletes a project (its issues, events, keys… go with it by cascade); answers its keys' public keys. */
  async deleteProject(trx: Kysely<Database>, organizationId: number, projectId: number): Promise<string[]> {
    const keys = await trx
      .selectFrom("project_keys")
      .select("public_key")
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .execute();
    await trx
      .deleteFrom("projects")
      .where("organization_id", "=", organizationId)
      .where("id", "=", projectId)
      .execute();
    return keys.map((key) => key.public_key);
  }

  /** Projects of several organizations (the caller's), newest first. */
  listProjectsIn(
    organizationIds: readonly number[],
    bound: KeysetBound,
  ): Promise<Array<Project & { organization_slug: string }>> {
    if (organizationIds.length === 0) return Promise.resolve([]);
    const condition = keysetCondition(bound, "p.date_created", "p.id");
    let query = this.db()
      .selectFrom("projects as p")
      .innerJoin("organizations as o", "o.id", "p.organization_id")
      .selectAll("p")
      .select("o.slug as organization_slug")
      .where("p.organization_id", "in", [...organizationIds]);
    if (condition) query = query.where(condition);
    return query.orderBy("p.date_created", bound.order).orderBy("p.id", bound.order).limit(bound.limit).execute();
  }

  /** The organizations `userId` is an active member of, with the role, oldest first. */
  listMemberships(userId: number): Promise<Array<Organization & { role: MemberRole }>> {
    return this.db()
      .selectFrom("organization_members as m")
      .innerJoin("organizations as o", "o.id", "m.organization_id")
      .selectAll("o")
      .select("m.role")
      .where("m.user_id", "=", userId)
      .where("m.active", "=", true)
      .orderBy("o.id")
      .execute();
  }

  findOrganizationById(organizationId: number): Promise<Organization | undefined> {
    return this.db().selectFrom("organizations").selectAll().where("id", "=", organizationId).executeTakeFirst();
  }

  /** An organization's teams with their member counts, by slug. */
  listTeams(organizationId: number) {
    return this.db()
      .selectFrom("teams as t")
      .selectAll("t")
      .select((eb) =>
        eb
          .selectFrom("team_members as tm")
          .innerJoin("organization_members as m", "m.id", "tm.member_id")
          .select((inner) => inner.fn.countAll<string>().as("n"))
          .whereRef("tm.team_id", "=", "t.id")
          .where("m.active", "=", true)
          .as("member_count"),
      )
      .where("t.organization_id", "=", organizationId)
      .orderBy("t.slug")
      .execute();
  }

  /** The teams (ids) `userId` belongs to in this organization. */
  async teamIdsOf(organizationId: number, userId: number): Promise<Set<number>> {
    const rows = await this.db()
      .selectFrom("team_members as tm")
      .innerJoin("organization_members as m", "m.id", "tm.member_id")
      .select("tm.team_id")
      .where("tm.organization_id", "=", organizationId)
      .where("m.user_id", "=", userId)
      .execute();
    return new Set(rows.map((row) => row.team_id));
  }

  /** An organization's members with their users and team slugs, oldest first. */
  listMembers(organizationId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "m.date_created", "m.id");
    let query = this.db()
      .selectFrom("organization_members as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select([
        "m.id",
        "m.role",
        "m.active",
        "m.date_created",
        "u.id as user_id",
        "u.username",
        "u.email",
        "u.name",
        "u.date_created as user_date_created",
      ])
      .select((eb) =>
        eb
          .selectFrom("team_members as tm")
          .innerJoin("teams as t", "t.id", "tm.team_id")
          .select(sql<string[]>`coalesce(array_agg(t.slug ORDER BY t.slug), '{}')`.as("slugs"))
          .whereRef("tm.member_id", "=", "m.id")
          .as("team_slugs"),
      )
      .where("m.organization_id", "=", organizationId);
    if (condition) query = query.where(condition);
    return query.orderBy("m.date_created", bound.order).orderBy("m.id", bound.order).limit(bound.limit).execute();
  }

  /** A user by numeric id, username or email (case-insensitive for the last two). */
  findUser(ref: Reference): Promise<User | undefined> {
    const id = numericId(ref);
    const query = this.db().selectFrom("users").selectAll();
    if (id !== null) return query.where("id", "=", id).executeTakeFirst();
    const lowered = String(ref).toLowerCase();
    return query
      .where((eb) =>
        eb.or([eb(eb.fn("lower", ["username"]), "=", lowered), eb(eb.fn("lower", ["email"]), "=", lowered)]),
      )
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
