import type { Insertable, Kysely } from "kysely";
import type { ApiTokensTable, Database } from "../../db/schema.js";

/** API token rows. User tokens are always addressed through their user. */
export class TokenRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insert(values: Insertable<ApiTokensTable>) {
    return this.db().insertInto("api_tokens").values(values).returningAll().executeTakeFirstOrThrow();
  }

  listForUser(userId: number) {
    return this.db()
      .selectFrom("api_tokens")
      .selectAll()
      .where("user_id", "=", userId)
      .where("kind", "=", "user")
      .orderBy("date_created", "desc")
      .orderBy("id", "desc")
      .execute();
  }

  /** Deletes one of this user's tokens; false when it is not theirs (or does not exist). */
  async deleteForUser(userId: number, tokenId: number): Promise<boolean> {
    const result = await this.db()
      .deleteFrom("api_tokens")
      .where("id", "=", tokenId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
