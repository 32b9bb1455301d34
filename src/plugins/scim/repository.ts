import { type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import type { MemberRole } from "../../db/schema.js";
import type { ScimDatabase } from "./tables.js";
import type { FilterTarget, SqlColumn } from "./resources/filter-sql.js";
import type { JsonObject } from "./resources/input.js";
import { GROUP_RESOURCE, USER_RESOURCE } from "./resources/schema-definitions.js";

export type ScimDb = Kysely<ScimDatabase>;

export interface GroupRef {
  value: string;
  display: string;
}

/** A member as SCIM sees it (one row of {@link userSource}). */
export interface UserRow {
  id: number;
  user_id: number;
  active: boolean;
  role: MemberRole;
  created: Date;
  last_modified: Date;
  user_name: string;
  external_id: string | null;
  attributes: JsonObject;
  groups: GroupRef[] | null;
}

/** A team as SCIM sees it (one row of {@link groupSource}). */
export interface GroupRow {
  id: number;
  slug: string;
  name: string;
  external_id: string | null;
  created: Date;
  last_modified: Date;
  members: GroupRef[] | null;
}

/**
 * Attributes of members that never went through SCIM (added by the host), derived from their user
 * account so that identity providers can find and link them by userName or email.
 */
const DERIVED_USER_ATTRIBUTES = sql<JsonObject>`jsonb_strip_nulls(jsonb_build_object(
  'name', nullif(jsonb_strip_nulls(jsonb_build_object(
    'formatted', nullif(u.name, ''),
    'givenName', nullif(split_part(u.name, ' ', 1), ''),
    'familyName', nullif(btrim(substr(u.name, char_length(split_part(u.name, ' ', 1)) + 1)), '')
  )), '{}'::jsonb),
  'displayName', nullif(u.name, ''),
  'emails', CASE WHEN u.email IS NULL THEN NULL ELSE jsonb_build_array(jsonb_build_object('value', u.email, 'type', 'work', 'primary', true)) END
))`;

/** Filterable columns of {@link userSource} (aliased `su`); everything else is in `su.attributes`. */
export const USER_COLUMNS: Record<string, SqlColumn> = {
  id: { kind: "text", sql: sql`su.id::text` },
  userName: { kind: "text", sql: sql.ref("su.user_name") },
  externalId: { kind: "text", sql: sql.ref("su.external_id") },
  active: { kind: "boolean", sql: sql.ref("su.active") },
  svcOrgRole: { kind: "text", sql: sql.ref("su.role") },
  meta: { kind: "jsonb", sql: sql`null` },
  "meta.resourceType": { kind: "text", sql: sql`'User'` },
  "meta.created": { kind: "timestamp", sql: sql.ref("su.created") },
  "meta.lastModified": { kind: "timestamp", sql: sql.ref("su.last_modified") },
  groups: { kind: "jsonb", sql: sql.ref("su.groups") },
};

const columnsOf = (columns: Record<string, SqlColumn>) => (path: string) =>
  Object.hasOwn(columns, path) ? columns[path] : undefined;

/** What filters on Users translate over: the columns above, the rest inside `su.attributes`. */
export const USER_FILTER_TARGET: FilterTarget = {
  resource: USER_RESOURCE,
  column: columnsOf(USER_COLUMNS),
  document: sql.ref("su.attributes"),
};

export const GROUP_COLUMNS: Record<string, SqlColumn> = {
  id: { kind: "text", sql: sql`sg.id::text` },
  displayName: { kind: "text", sql: sql.ref("sg.name") },
  externalId: { kind: "text", sql: sql.ref("sg.external_id") },
  meta: { kind: "jsonb", sql: sql`null` },
  "meta.resourceType": { kind: "text", sql: sql`'Group'` },
  "meta.created": { kind: "timestamp", sql: sql.ref("sg.created") },
  "meta.lastModified": { kind: "timestamp", sql: sql.ref("sg.last_modified") },
  members: { kind: "jsonb", sql: sql.ref("sg.members") },
};
/** Groups have no attributes outside columns. */
export const GROUP_FILTER_TARGET: FilterTarget = {
  resource: GROUP_RESOURCE,
  column: columnsOf(GROUP_COLUMNS),
  document: sql`'{}'::jsonb`,
};

/** Page of a list: rows in id order and how many match in all. */
export interface ListPage<Row> {
  total: number;
  rows: Row[];
}

export interface ListBounds {
  where: RawBuilder<SqlBool> | null;
  offset: number;
  limit: number;
}

/** Queries behind SCIM Users and Groups. Every one is scoped by the organization id it takes first. */
export class ScimRepository {
  /** Serialises SCIM writes per organization so that uniqueness checks (userName in any case, displayName) hold. */
  async lockOrganization(db: ScimDb, organizationId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int4, ${organizationId}::int4)`.execute(db);
  }

  userSource(db: ScimDb, organizationId: number, withGroups: boolean) {
    return db
      .selectFrom("organization_members as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .where("m.organization_id", "=", organizationId)
      .select((eb) => [
        "m.id",
        "m.user_id",
        "m.active",
        "m.role",
        "m.date_created as created",
        sql<Date>`coalesce(m.date_updated, m.date_created)`.as("last_modified"),
        sql<string>`coalesce(m.scim_user_name, u.email, u.username)`.as("user_name"),
        "m.scim_external_id as external_id",
        sql<JsonObject>`coalesce(m.scim_attributes, ${DERIVED_USER_ATTRIBUTES})`.as("attributes"),
        withGroups
          ? eb
              .selectFrom("team_members as tm")
              .innerJoin("teams as t", "t.id", "tm.team_id")
              .whereRef("tm.member_id", "=", "m.id")
              .select(
                sql<
                  GroupRef[]
                >`coalesce(jsonb_agg(jsonb_build_object('value', t.id::text, 'display', t.name) ORDER BY t.id), '[]'::jsonb)`.as(
                  "refs",
                ),
              )
              .as("groups")
          : sql<GroupRef[] | null>`null::jsonb`.as("groups"),
      ]);
  }

  async listUsers(
    db: ScimDb,
    organizationId: number,
    bounds: ListBounds,
    withGroups: boolean,
  ): Promise<ListPage<UserRow>> {
    const source = () => db.selectFrom(this.userSource(db, organizationId, withGroups).as("su"));
    const where = bounds.where ?? sql<SqlBool>`true`;
    const { total } = await source()
      .select(sql<number>`count(*)::int`.as("total"))
      .where(where)
      .executeTakeFirstOrThrow();
    const rows =
      bounds.limit === 0 || bounds.offset >= total
        ? []
        : await source().selectAll().where(where).orderBy("su.id").offset(bounds.offset).limit(bounds.limit).execute();
    return { total, rows: rows as UserRow[] };
  }

  async findUser(
    db: ScimDb,
    organizationId: number,
    memberId: number,
    withGroups = true,
  ): Promise<UserRow | undefined> {
    return (await this.userSource(db, organizationId, withGroups).where("m.id", "=", memberId).executeTakeFirst()) as
      UserRow | undefined;
  }

  /** The member using this userName (compared case-insensitively), host-added members by their email or username. */
  async findUserByUserName(db: ScimDb, organizationId: number, userName: string) {
    return db
      .selectFrom("organization_members as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select("m.id")
      .where("m.organization_id", "=", organizationId)
      .where(sql<SqlBool>`lower(coalesce(m.scim_user_name, u.email, u.username)) = lower(${userName}::text)`)
      .executeTakeFirst();
  }

  async findUserByExternalId(db: ScimDb, organizationId: number, externalId: string) {
    return db
      .selectFrom("organization_members")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("scim_external_id", "=", externalId)
      .executeTakeFirst();
  }

  async countActiveOwners(db: ScimDb, organizationId: number): Promise<number> {
    const { n } = await db
      .selectFrom("organization_members")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("organization_id", "=", organizationId)
      .where("role", "=", "owner")
      .where("active", "=", true)
      .executeTakeFirstOrThrow();
    return n;
  }

  /** The oldest user account with this email (case-insensitive). */
  findAccountByEmail(db: ScimDb, email: string) {
    return db
      .selectFrom("users")
      .selectAll()
      .where(sql<SqlBool>`lower(email) = lower(${email}::text)`)
      .orderBy("id")
      .executeTakeFirst();
  }

  /** Creates a user account; usernames are global, so a taken one gets a numbered suffix. */
  async insertAccount(db: ScimDb, values: { username: string; email: string | null; name: string; now: Date }) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const username = attempt === 0 ? values.username : `${values.username}-${attempt + 1}`;
      const row = await db
        .insertInto("users")
        .values({ username, email: values.email, name: values.name, date_created: values.now })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return row;
    }
    throw new Error(`Could not find a free username for ${JSON.stringify(values.username)}`);
  }

  /** Adds the membership; undefined when the account is already a member of this organization. */
  insertMember(db: ScimDb, values: MemberValues & { organizationId: number; userId: number; now: Date }) {
    return db
      .insertInto("organization_members")
      .values({
        organization_id: values.organizationId,
        user_id: values.userId,
        role: values.role,
        active: values.active,
        date_created: values.now,
        date_updated: values.now,
        scim_user_name: values.userName,
        scim_external_id: values.externalId,
        scim_attributes: JSON.stringify(values.attributes),
      })
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doNothing())
      .returning("id")
      .executeTakeFirst();
  }

  async updateMember(
    db: ScimDb,
    organizationId: number,
    memberId: number,
    values: MemberValues & { now: Date },
  ): Promise<void> {
    await db
      .updateTable("organization_members")
      .set({
        role: values.role,
        active: values.active,
        date_updated: values.now,
        scim_user_name: values.userName,
        scim_external_id: values.externalId,
        scim_attributes: JSON.stringify(values.attributes),
      })
      .where("organization_id", "=", organizationId)
      .where("id", "=", memberId)
      .execute();
  }

  /** Removes the membership (team memberships go with it, by cascade); the user account stays. */
  async deleteMember(db: ScimDb, organizationId: number, memberId: number): Promise<void> {
    await db
      .deleteFrom("organization_members")
      .where("organization_id", "=", organizationId)
      .where("id", "=", memberId)
      .execute();
  }

  groupSource(db: ScimDb, organizationId: number, withMembers: boolean) {
    return db
      .selectFrom("teams as t")
      .where("t.organization_id", "=", organizationId)
      .select((eb) => [
        "t.id",
        "t.slug",
        "t.name",
        "t.scim_external_id as external_id",
        "t.date_created as created",
        sql<Date>`coalesce(t.date_updated, t.date_created)`.as("last_modified"),
        withMembers
          ? eb
              .selectFrom("team_members as tm")
              .innerJoin("organization_members as m", "m.id", "tm.member_id")
              .innerJoin("users as u", "u.id", "m.user_id")
              .whereRef("tm.team_id", "=", "t.id")
              .select(
                sql<
                  GroupRef[]
                >`coalesce(jsonb_agg(jsonb_build_object('value', m.id::text, 'display', coalesce(m.scim_attributes ->> 'displayName', nullif(u.name, ''), m.scim_user_name, u.username)) ORDER BY m.id), '[]'::jsonb)`.as(
                  "refs",
                ),
              )
              .as("members")
          : sql<GroupRef[] | null>`null::jsonb`.as("members"),
      ]);
  }

  async listGroups(
    db: ScimDb,
    organizationId: number,
    bounds: ListBounds,
    withMembers: boolean,
  ): Promise<ListPage<GroupRow>> {
    const source = () => db.selectFrom(this.groupSource(db, organizationId, withMembers).as("sg"));
    const where = bounds.where ?? sql<SqlBool>`true`;
    const { total } = await source()
      .select(sql<number>`count(*)::int`.as("total"))
      .where(where)
      .executeTakeFirstOrThrow();
    const rows =
      bounds.limit === 0 || bounds.offset >= total
        ? []
        : await source().selectAll().where(where).orderBy("sg.id").offset(bounds.offset).limit(bounds.limit).execute();
    return { total, rows: rows as GroupRow[] };
  }

  async findGroup(
    db: ScimDb,
    organizationId: number,
    teamId: number,
    withMembers = true,
  ): Promise<GroupRow | undefined> {
    return (await this.groupSource(db, organizationId, withMembers).where("t.id", "=", teamId).executeTakeFirst()) as
      GroupRow | undefined;
  }

  findGroupByName(db: ScimDb, organizationId: number, name: string) {
    return db
      .selectFrom("teams")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where(sql<SqlBool>`lower(name) = lower(${name}::text)`)
      .executeTakeFirst();
  }

  findGroupByExternalId(db: ScimDb, organizationId: number, externalId: string) {
    return db
      .selectFrom("teams")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("scim_external_id", "=", externalId)
      .executeTakeFirst();
  }

  async slugsLike(db: ScimDb, organizationId: number, base: string): Promise<Set<string>> {
    const rows = await db
      .selectFrom("teams")
      .select("slug")
      .where("organization_id", "=", organizationId)
      .where(sql<SqlBool>`starts_with(slug, ${base}::text)`)
      .execute();
    return new Set(rows.map((row) => row.slug));
  }

  insertTeam(
    db: ScimDb,
    values: { organizationId: number; slug: string; name: string; externalId: string | null; now: Date },
  ) {
    return db
      .insertInto("teams")
      .values({
        organization_id: values.organizationId,
        slug: values.slug,
        name: values.name,
        scim_external_id: values.externalId,
        date_created: values.now,
        date_updated: values.now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
  }

  async updateTeam(
    db: ScimDb,
    organizationId: number,
    teamId: number,
    values: { name: string; externalId: string | null; now: Date },
  ): Promise<void> {
    await db
      .updateTable("teams")
      .set({ name: values.name, scim_external_id: values.externalId, date_updated: values.now })
      .where("organization_id", "=", organizationId)
      .where("id", "=", teamId)
      .execute();
  }

  async deleteTeam(db: ScimDb, organizationId: number, teamId: number): Promise<void> {
    await db.deleteFrom("teams").where("organization_id", "=", organizationId).where("id", "=", teamId).execute();
  }

  /** Member id → user account id, for these members of the organization. */
  async memberUsers(db: ScimDb, organizationId: number, memberIds: number[]): Promise<Map<number, number>> {
    if (memberIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("organization_members")
      .select(["id", "user_id"])
      .where("organization_id", "=", organizationId)
      .where("id", "in", memberIds)
      .execute();
    return new Map(rows.map((row) => [row.id, row.user_id]));
  }

  async addTeamMembers(
    db: ScimDb,
    organizationId: number,
    teamId: number,
    memberIds: number[],
    now: Date,
  ): Promise<void> {
    if (memberIds.length === 0) return;
    await db
      .insertInto("team_members")
      .values(
        memberIds.map((memberId) => ({
          organization_id: organizationId,
          team_id: teamId,
          member_id: memberId,
          date_created: now,
        })),
      )
      .onConflict((oc) => oc.columns(["team_id", "member_id"]).doNothing())
      .execute();
  }

  async removeTeamMembers(db: ScimDb, organizationId: number, teamId: number, memberIds: number[]): Promise<void> {
    if (memberIds.length === 0) return;
    await db
      .deleteFrom("team_members")
      .where("organization_id", "=", organizationId)
      .where("team_id", "=", teamId)
      .where("member_id", "in", memberIds)
      .execute();
  }

  async setScimEnabled(db: ScimDb, organizationId: number, enabled: boolean): Promise<void> {
    await db.updateTable("organizations").set({ scim_enabled: enabled }).where("id", "=", organizationId).execute();
  }

  /** Revokes the organization's SCIM tokens, but the one just issued. */
  async revokeScimTokens(db: ScimDb, organizationId: number, keepTokenId: number | null): Promise<void> {
    let query = db.deleteFrom("api_tokens").where("kind", "=", "scim").where("organization_id", "=", organizationId);
    if (keepTokenId !== null) query = query.where("id", "<>", keepTokenId);
    await query.execute();
  }
}

/** Advisory-lock namespace of SCIM writes (the second key is the organization id). */
const LOCK_CLASS = 0x5c1a;

export interface MemberValues {
  role: MemberRole;
  active: boolean;
  userName: string;
  externalId: string | null;
  attributes: JsonObject;
}
