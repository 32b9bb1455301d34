import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { Actor } from "../events/event-bus.js";
import type { Principal } from "./principal.js";

/** The user who acted, as Sentry shows one (an issue's statusDetails.actor). */
export interface ActingUser {
  id: string;
  name: string;
  username: string;
  email: string | null;
}

export interface ResolvedActor {
  /** For domain events (webhook `actor`). */
  actor: Actor;
  /** For statusDetails.actor; null when no user acted. */
  user: ActingUser | null;
  userId: number | null;
}

/** Who is acting: the principal's user, the app behind an installation token, or an API token. */
export async function resolveActor(db: Kysely<Database>, principal: Principal | null): Promise<ResolvedActor> {
  if (principal?.userId != null) {
    const user = await db
      .selectFrom("users")
      .select(["id", "username", "name", "email"])
      .where("id", "=", principal.userId)
      .executeTakeFirst();
    if (user) {
      const status = {
        id: String(user.id),
        name: user.name || user.username,
        username: user.username,
        email: user.email,
      };
      return { actor: { type: "user", id: String(user.id), name: status.name }, user: status, userId: user.id };
    }
  }
  if (principal?.installationId != null) {
    const app = await db
      .selectFrom("app_installations as i")
      .innerJoin("apps as a", "a.id", "i.app_id")
      .select(["a.uuid", "a.name"])
      .where("i.id", "=", principal.installationId)
      .executeTakeFirst();
    if (app) return { actor: { type: "application", id: app.uuid, name: app.name }, user: null, userId: null };
  }
  return { actor: { type: "application", id: "api-token", name: "API token" }, user: null, userId: null };
}
