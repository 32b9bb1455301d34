import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";

/**
 * Keeps an app's queued webhook deliveries consistent with the app. A delivery stores the URL and
 * secret it is sent with (fixed at enqueue), so changing them on the app has to reach the rows
 * still waiting — else a receiver would get requests signed with a secret it was told to drop.
 */
export async function retargetPendingDeliveries(
  db: Kysely<Database>,
  appId: number,
  change: { url?: string; secret?: string },
): Promise<void> {
  if (change.url === undefined && change.secret === undefined) return;
  await db
    .updateTable("deliveries")
    .set({
      ...(change.url !== undefined && { url: change.url }),
      ...(change.secret !== undefined && { secret: change.secret }),
    })
    .where("destination_type", "=", "app")
    .where("destination_id", "=", String(appId))
    .where("status", "=", "pending")
    .execute();
}

/**
 * Cancels what is still queued for an app (deleted, or without a webhook URL any more) or for one
 * installation (uninstalled), so an app gets nothing more of an organization it left. The
 * `installation.deleted` notices are kept — they are sent precisely because the installation is
 * gone — unless the app has no webhook URL left to send them to.
 */
export async function cancelPendingDeliveries(
  db: Kysely<Database>,
  now: Date,
  target: { appId: number } | { installationUuid: string },
  options: { uninstallNoticesToo?: boolean } = {},
): Promise<void> {
  let query = db
    .updateTable("deliveries")
    .set({ status: "cancelled", date_finished: now })
    .where("destination_type", "=", "app")
    .where("status", "=", "pending");
  query =
    "appId" in target
      ? query.where("destination_id", "=", String(target.appId))
      : query.where("installation_uuid", "=", target.installationUuid);
  if (!options.uninstallNoticesToo) query = query.where("event_type", "!=", "installation.deleted");
  await query.execute();
}

/** A new webhook URL starts with a clean record: the five-day failure clock restarts. */
export async function resetDestinationHealth(db: Kysely<Database>, appId: number): Promise<void> {
  await db
    .deleteFrom("delivery_destinations")
    .where("destination_type", "=", "app")
    .where("destination_id", "=", String(appId))
    .execute();
}
