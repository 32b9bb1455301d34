import type { DependencyContainer } from "tsyringe";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Principal } from "../../../auth/principal.js";
import { Clock, Db } from "../../../container/tokens.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { badRequest } from "../../../http/errors.js";
import { NOTIFICATION_CATEGORIES, type NotificationCategory } from "../notifier.js";
import { NotificationSettingsToken, NotifierRegistryToken } from "../tokens.js";
import type { NotificationSetting } from "./repository.js";

const SETTINGS = "/api/0/organizations/{organization_id_or_slug}/notification-settings/";

const changeSchema = z.strictObject({
  category: z.enum(NOTIFICATION_CATEGORIES as [NotificationCategory, ...NotificationCategory[]], {
    error: `must be one of ${NOTIFICATION_CATEGORIES.join(", ")}`,
  }),
  channel: z.string().min(1).max(64).default("email"),
  /** A project's slug: the choice applies to it alone; absent or null: to every project. */
  project: z.string().min(1).max(100).nullable().default(null),
  /** On, off, or null to remove the choice (the next less specific one applies again). */
  enabled: z.boolean().nullable(),
});
const settingsBody = z.strictObject({ settings: z.array(changeSchema).min(1).max(200) });

/** Only user endpoints reach here (`auth: "user"`), so the user id is set. */
const userIdOf = (principal: Principal | null) => principal?.userId as number;

async function projectIds(db: Kysely<Database>, organizationId: number, slugs: string[]): Promise<Map<string, number>> {
  if (slugs.length === 0) return new Map();
  const rows = await db
    .selectFrom("projects")
    .select(["id", "slug"])
    .where("organization_id", "=", organizationId)
    .where("slug", "in", slugs)
    .execute();
  return new Map(rows.map((row) => [row.slug, row.id]));
}

function serializeSetting(setting: NotificationSetting, slugs: Map<number, string>) {
  return {
    category: setting.category,
    channel: setting.channel,
    project: setting.projectId === null ? null : (slugs.get(setting.projectId) ?? String(setting.projectId)),
    enabled: setting.enabled,
  };
}

type SettingsContext = { container: DependencyContainer; organization: { id: number } };

async function settingsReply({ container, organization }: SettingsContext, userId: number) {
  const db = container.resolve(Db);
  const settings = container.resolve(NotificationSettingsToken);
  const [mine, defaults, projects] = await Promise.all([
    settings.list(db, organization.id, userId),
    settings.list(db, organization.id, null),
    db.selectFrom("projects").select(["id", "slug"]).where("organization_id", "=", organization.id).execute(),
  ]);
  const slugs = new Map(projects.map((project) => [project.id, project.slug]));
  return {
    body: {
      channels: container
        .resolve(NotifierRegistryToken)
        .personal()
        .map((notifier) => notifier.channel),
      categories: NOTIFICATION_CATEGORIES,
      settings: mine.map((setting) => serializeSetting(setting, slugs)),
      defaults: defaults.map((setting) => serializeSetting(setting, slugs)),
    },
  };
}

async function save(ctx: SettingsContext, userId: number | null, changes: z.output<typeof settingsBody>["settings"]) {
  const db = ctx.container.resolve(Db);
  const channels = new Set(
    ctx.container
      .resolve(NotifierRegistryToken)
      .personal()
      .map((notifier) => notifier.channel),
  );
  const unknownChannels = [...new Set(changes.map((change) => change.channel))].filter((c) => !channels.has(c));
  if (unknownChannels.length > 0) {
    const message = `Unknown channel: ${unknownChannels.join(", ")} (this instance has: ${[...channels].join(", ") || "none"})`;
    throw badRequest(message, { channel: [message] });
  }
  const slugs = [...new Set(changes.flatMap((change) => (change.project === null ? [] : [change.project])))];
  const ids = await projectIds(db, ctx.organization.id, slugs);
  const unknown = slugs.filter((slug) => !ids.has(slug));
  if (unknown.length > 0) {
    const message = `Unknown project: ${unknown.join(", ")}`;
    throw badRequest(message, { project: [message] });
  }
  await runInTransaction(db, ({ trx }) =>
    ctx.container.resolve(NotificationSettingsToken).save(
      trx,
      ctx.organization.id,
      changes.map((change) => ({
        userId,
        projectId: change.project === null ? null : (ids.get(change.project) as number),
        category: change.category,
        channel: change.channel,
        enabled: change.enabled,
      })),
      ctx.container.resolve(Clock).now(),
    ),
  );
}

export const getNotificationSettings = defineEndpoint({
  method: "GET",
  path: SETTINGS,
  operationId: "notifications.getSettings",
  summary:
    "The calling user's notification choices in this organization (per category, channel and project) and the organization's defaults under them",
  auth: "user",
  scopes: ["org:read"],
  handler: (ctx) => settingsReply(ctx, userIdOf(ctx.principal)),
});

export const updateNotificationSettings = defineEndpoint({
  method: "PUT",
  path: SETTINGS,
  operationId: "notifications.updateSettings",
  summary: "Turn a category of the calling user's notifications on or off, for every project or one",
  auth: "user",
  scopes: ["org:read"],
  body: settingsBody,
  handler: async (ctx) => {
    await save(ctx, userIdOf(ctx.principal), ctx.body.settings);
    return settingsReply(ctx, userIdOf(ctx.principal));
  },
});

export const updateNotificationDefaults = defineEndpoint({
  method: "PUT",
  path: `${SETTINGS}defaults/`,
  operationId: "notifications.updateDefaults",
  summary: "The organization's default notification choices, for members who made none",
  scopes: ["org:write"],
  body: settingsBody,
  handler: async (ctx) => {
    await save(ctx, null, ctx.body.settings);
    const reply = await settingsReply(ctx, ctx.principal.userId ?? 0);
    return { body: { defaults: reply.body.defaults } };
  },
});
