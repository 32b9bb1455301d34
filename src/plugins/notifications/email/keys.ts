import type { Kysely } from "kysely";
import { randomHex } from "../../../crypto/secrets.js";
import type { Database } from "../../../db/schema.js";

/**
 * The key signing unsubscribe links: made once per database (the first instance to start writes
 * it, the others read that one), so a link from any instance works on every instance.
 */
export class UnsubscribeKey {
  #secret: string | undefined;

  async load(db: Kysely<Database>): Promise<string> {
    if (this.#secret) return this.#secret;
    await db
      .insertInto("notification_keys")
      .values({ id: 1, secret: randomHex(32) })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    const row = await db.selectFrom("notification_keys").select("secret").where("id", "=", 1).executeTakeFirstOrThrow();
    this.#secret = row.secret;
    return row.secret;
  }

  /** The key, once `load` ran (at init). */
  get secret(): string {
    if (!this.#secret) throw new Error("The unsubscribe key is not loaded yet");
    return this.#secret;
  }
}
