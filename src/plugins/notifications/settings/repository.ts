import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { NotificationCategory } from "../notifier.js";

/** One stored choice: a user's or (user null) the organization's default, for one project or (null) all. */
export interface NotificationSetting {
  userId: number | null;
  projectId: number | null;
  category: NotificationCategory;
  channel: string;
  enabled: boolean;
}

/**
 * The on/off choices per user, category, channel and project, with the organization's default
 * under them. The most specific choice wins: the user's for this project, the user's for all
 * projects, the organization's for this project, the organization's; with none, notifications are on.
 */
export class NotificationSettings {
  /** The users of `userIds` who want this category of notification on this channel for this project. */
  async wanting(
    trx: Kysely<Database>,
    organizationId: number,
    /** Null (a notice of no one project): only the choices for every project apply. */
    projectId: number | null,
    category: NotificationCategory,
    channel: string,
    userIds: readonly number[],
  ): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await trx
      .selectFrom("notification_settings")
      .select(["user_id", "project_id", "enabled"])
      .where("organization_id", "=", organizationId)
      .where("category", "=", category)
      .where("channel", "=", channel)
      .where((eb) => eb.or([eb("user_id", "is", null), eb("user_id", "in", [...userIds])]))
      .where((eb) =>
        projectId === null
          ? eb("project_id", "is", null)
          : eb.or([eb("project_id", "is", null), eb("project_id", "=", projectId)]),
      )
      .execute();
    const rank = (row: { user_id: number | null; project_id: number | null }) =>
      (row.user_id === null ? 0 : 2) + (row.project_id === null ? 0 : 1);
    const chosen = (userId: number) =>
      rows
        .filter((row) => row.user_id === null || row.user_id === userId)
        .reduce<{ rank: number; enabled: boolean }>(
          (best, row) => (rank(row) >= best.rank ? { rank: rank(row), enabled: row.enabled } : best),
          { rank: -1, enabled: true },
        ).enabled;
    return new Set(userIds.filter(chosen));
  }

  /** A user's choices, or (userId null) the organization's defaults. */
  async list(db: Kysely<Database>, organizationId: number, userId: number | null): Promise<NotificationSetting[]> {
    const rows = await db
      .selectFrom("notification_settings")
      .select(["user_id", "project_id", "category", "channel", "enabled"])
      .where("organization_id", "=", organizationId)
      .where("user_id", userId === null ? "is" : "=", userId)
      .orderBy("project_id", (ob) => ob.nullsFirst())
      .orderBy("category")
      .orderBy("channel")
      .execute();
    return rows.map((row) => ({
      userId: row.user_id,
      projectId: row.project_id,
      category: row.category,
      channel: row.channel,
      enabled: row.enabled,
    }));
  }

  /** Sets choices; `enabled: null` removes one (the next less specific choice applies again). */
  async save(
    trx: Kysely<Database>,
    organizationId: number,
    changes: ReadonlyArray<Omit<NotificationSetting, "enabled"> & { enabled: boolean | null }>,
    now: Date,
  ): Promise<void> {
    for (const change of changes) {
      if (change.enabled === null) {
        await trx
          .deleteFrom("notification_settings")
          .where("organization_id", "=", organizationId)
          .where("user_id", change.userId === null ? "is" : "=", change.userId)
          .where("project_id", change.projectId === null ? "is" : "=", change.projectId)
          .where("category", "=", change.category)
          .where("channel", "=", change.channel)
          .execute();
        continue;
      }
      // An upsert on the scope's unique index: two saves of one choice at once both succeed.
      const enabled = change.enabled;
      await trx
        .insertInto("notification_settings")
        .values({
          organization_id: organizationId,
          user_id: change.userId,
          project_id: change.projectId,
          category: change.category,
          channel: change.channel,
          enabled,
          date_updated: now,
        })
        .onConflict((oc) =>
          oc
            .expression(sql`organization_id, coalesce(user_id, 0), coalesce(project_id, 0), category, channel`)
            .doUpdateSet({ enabled, date_updated: now }),
        )
        .execute();
    }
  }
}
