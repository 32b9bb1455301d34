import { idString, isoDate } from "../../../http/format.js";
import type { TombstoneWithActor } from "./service.js";

/** Sentry's tombstone: `{id, level, message, culprit, type, metadata, actor, dateAdded}` (`actor` null without a user). */
export function serializeTombstone(row: TombstoneWithActor) {
  const actor =
    row.actor_user_id === null || row.actor_username === null
      ? null
      : {
          id: idString(row.actor_user_id),
          username: row.actor_username,
          name: row.actor_name ?? row.actor_username,
          email: row.actor_email,
        };
  return {
    id: idString(row.id),
    level: row.level,
    message: row.title,
    culprit: row.culprit,
    type: row.type,
    metadata: row.metadata,
    actor,
    dateAdded: isoDate(row.date_added),
  };
}
