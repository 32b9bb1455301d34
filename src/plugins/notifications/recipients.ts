import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { UserRecipient } from "./notifier.js";

/**
 * Members of an organization as notifications reach them. Only active members are returned, with
 * the address their membership has on record (the host's user, or SCIM): Faultline never mails an
 * address taken from a rule, a request or an event.
 */
export class Recipients {
  /** The active members among these users. */
  async users(trx: Kysely<Database>, organizationId: number, userIds: readonly number[]): Promise<UserRecipient[]> {
    if (userIds.length === 0) return [];
    return this.#members(trx, organizationId, (query) => query.where("u.id", "in", [...new Set(userIds)]));
  }

  /** The active members of a team of this organization. */
  async team(trx: Kysely<Database>, organizationId: number, teamId: number): Promise<UserRecipient[]> {
    return this.#members(trx, organizationId, (query) =>
      query.where("m.id", "in", (eb) =>
        eb
          .selectFrom("team_members")
          .select("member_id")
          .where("team_id", "=", teamId)
          .where("organization_id", "=", organizationId),
      ),
    );
  }

  /** Every active member. */
  async all(trx: Kysely<Database>, organizationId: number): Promise<UserRecipient[]> {
    return this.#members(trx, organizationId, (query) => query);
  }

  async #members(
    trx: Kysely<Database>,
    organizationId: number,
    narrow: (query: ReturnType<Recipients["baseQuery"]>) => ReturnType<Recipients["baseQuery"]>,
  ): Promise<UserRecipient[]> {
    const rows = await narrow(this.baseQuery(trx, organizationId)).execute();
    return rows.map((row) => ({ kind: "user", userId: row.id, email: row.email, name: row.name || row.username }));
  }

  private baseQuery(trx: Kysely<Database>, organizationId: number) {
    return trx
      .selectFrom("organization_members as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select(["u.id", "u.email", "u.name", "u.username"])
      .where("m.organization_id", "=", organizationId)
      .where("m.active", "=", true)
      .orderBy("u.id");
  }
}
