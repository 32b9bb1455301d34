import type { Kysely } from "kysely";
import type { Database, MemberRole } from "../../db/schema.js";
import type { VerifiedAddress } from "../../options.js";
import type { UserRecipient } from "./notifier.js";

/**
 * Members of an organization as notifications reach them. Only active members are returned, with
 * the address their membership has on record (the host's user, or SCIM): Faultline never mails an
 * address taken from a rule, a request or an event. An address the host's `verifiedAddress` refuses
 * is no address (the member is still reached on other channels).
 */
export class Recipients {
  constructor(private readonly verified?: VerifiedAddress) {}

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

  /** The active members with one of these roles (the owners and managers, say). */
  async withRoles(
    trx: Kysely<Database>,
    organizationId: number,
    roles: readonly MemberRole[],
  ): Promise<UserRecipient[]> {
    return this.#members(trx, organizationId, (query) => query.where("m.role", "in", [...roles]));
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
    return Promise.all(
      rows.map(async (row) => ({
        kind: "user" as const,
        userId: row.id,
        email: row.email && (await this.#mailable(row.id, row.email)) ? row.email : null,
        name: row.name || row.username,
      })),
    );
  }

  /** A hook that fails counts as "not verified": the change that caused the notification still commits. */
  async #mailable(userId: number, email: string): Promise<boolean> {
    if (!this.verified) return true;
    try {
      return (await this.verified({ userId, email })) === true;
    } catch {
      return false;
    }
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
