import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { fieldErrors } from "../../../http/errors.js";
import type { Assignee } from "../domain-events.js";

export interface ResolvedAssignee extends Assignee {
  userId: number | null;
  teamId: number | null;
}

const unknownActor = () => fieldErrors({ assignedTo: ["Unknown actor input"] });

/**
 * Resolves `assignedTo`: `user:<id>`, `team:<id>`, `#team-slug`, a username, email or user id of
 * an active member, or a team name. Null means unassign. Anything else → 400 "Unknown actor input".
 */
export async function resolveAssignee(
  db: Kysely<Database>,
  organizationId: number,
  input: string | null,
): Promise<ResolvedAssignee | null> {
  const value = input?.trim() ?? "";
  if (value === "") return null;
  const prefixed = /^(user|team):(\d{1,9})$/.exec(value);
  if (prefixed?.[1] === "user")
    return (await findMember(db, organizationId, Number(prefixed[2]))) ?? Promise.reject(unknownActor());
  if (prefixed?.[1] === "team")
    return (await findTeam(db, organizationId, { id: Number(prefixed[2]) })) ?? Promise.reject(unknownActor());
  if (value.startsWith("#"))
    return (await findTeam(db, organizationId, { slug: value.slice(1) })) ?? Promise.reject(unknownActor());
  const member = await findMember(db, organizationId, value);
  if (member) return member;
  return (await findTeam(db, organizationId, { name: value })) ?? Promise.reject(unknownActor());
}

async function findMember(
  db: Kysely<Database>,
  organizationId: number,
  ref: number | string,
): Promise<ResolvedAssignee | null> {
  let query = db
    .selectFrom("users as u")
    .innerJoin("organization_members as m", "m.user_id", "u.id")
    .select(["u.id", "u.username", "u.email"])
    .where("m.organization_id", "=", organizationId)
    .where("m.active", "=", true);
  if (typeof ref === "number" || /^\d{1,9}$/.test(ref)) query = query.where("u.id", "=", Number(ref));
  else {
    const lowered = ref.toLowerCase();
    query = query.where((eb) =>
      eb.or([eb(eb.fn("lower", ["u.username"]), "=", lowered), eb(eb.fn("lower", ["u.email"]), "=", lowered)]),
    );
  }
  const user = await query.orderBy("u.id").executeTakeFirst();
  if (!user) return null;
  return {
    type: "user",
    id: String(user.id),
    name: user.username,
    ...(user.email ? { email: user.email } : {}),
    userId: user.id,
    teamId: null,
  };
}

async function findTeam(
  db: Kysely<Database>,
  organizationId: number,
  by: { id?: number; slug?: string; name?: string },
): Promise<ResolvedAssignee | null> {
  let query = db.selectFrom("teams").select(["id", "name"]).where("organization_id", "=", organizationId);
  if (by.id !== undefined) query = query.where("id", "=", by.id);
  if (by.slug !== undefined) query = query.where("slug", "=", by.slug);
  if (by.name !== undefined)
    query = query.where((eb) =>
      eb.or([eb(eb.fn("lower", ["name"]), "=", by.name?.toLowerCase() ?? ""), eb("slug", "=", by.name ?? "")]),
    );
  const team = await query.orderBy("id").executeTakeFirst();
  return team ? { type: "team", id: String(team.id), name: team.name, userId: null, teamId: team.id } : null;
}
