import { registerFactory } from "../../container/container.js";
import { Clock, Db, Options } from "../../container/tokens.js";
import { DestinationRegistryToken, OutboxToken } from "../../delivery/tokens.js";
import { IssueMergeParticipantToken } from "../issues/index.js";
import { notificationsMergeParticipant } from "./merge.js";
import { definePlugin } from "../../plugin/plugin.js";
import { OrganizationLinksToken } from "../organizations/index.js";
import { ChatNotifier } from "./chat/notifier.js";
import { notificationDigestTask } from "./digest.js";
import { UnsubscribeKey } from "./email/keys.js";
import { EmailNotifier } from "./email/notifier.js";
import { unsubscribe, unsubscribePage } from "./email/unsubscribe-routes.js";
import { notificationsMigrations } from "./migrations.js";
import { emailSettings, notificationLinks } from "./options.js";
import { Recipients } from "./recipients.js";
import { NotifierRegistry } from "./registry.js";
import { NotificationService } from "./service.js";
import { NotificationSettings } from "./settings/repository.js";
import { getNotificationSettings, updateNotificationDefaults, updateNotificationSettings } from "./settings/routes.js";
import {
  NotificationServiceToken,
  NotificationSettingsToken,
  NotifierRegistryToken,
  UnsubscribeKeyToken,
} from "./tokens.js";
import { workflowSubscriptions } from "./workflow.js";

/**
 * Email and chat notifications (docs/notifications.md): the channels (email over SMTP, chat
 * webhooks, a host's own `Notifier`), per-user settings with one-click unsubscribe, the throttle
 * and its digests, and the personal workflow notifications. Alert rules notify through
 * {@link NotificationService}.
 */
export const notificationsPlugin = definePlugin({
  id: "notifications",
  dependencies: ["organizations", "issues"],
  migrations: notificationsMigrations,
  register(container) {
    const options = container.resolve(Options);
    const email = emailSettings(options);
    const links = notificationLinks(options);
    if (email && !links.apiRoot)
      throw new TypeError(
        "Invalid Faultline options: email notifications need publicUrl or notifications.dashboardUrl (every email carries a one-click unsubscribe link to this instance)",
      );
    registerFactory(container, NotifierRegistryToken, (c) => {
      const registry = new NotifierRegistry(c.resolve(DestinationRegistryToken));
      if (email) registry.register(new EmailNotifier(email));
      registry.register(new ChatNotifier());
      return registry;
    });
    container.register(IssueMergeParticipantToken, { useValue: notificationsMergeParticipant });
    registerFactory(container, NotificationSettingsToken, () => new NotificationSettings());
    registerFactory(container, UnsubscribeKeyToken, () => new UnsubscribeKey());
    registerFactory(
      container,
      NotificationServiceToken,
      (c) =>
        new NotificationService(
          c.resolve(NotifierRegistryToken),
          c.resolve(OutboxToken),
          c.resolve(NotificationSettingsToken),
          new Recipients(options.notifications.verifiedAddress),
          c.resolve(UnsubscribeKeyToken),
          c.resolve(Clock),
          links,
          options.notifications.minIntervalMinutes,
          c.resolve(OrganizationLinksToken),
        ),
    );
  },
  async init({ container }) {
    container.resolve(NotifierRegistryToken); // registers the channels' delivery destinations
    await container.resolve(UnsubscribeKeyToken).load(container.resolve(Db));
  },
  async close({ container }) {
    const email = container.resolve(NotifierRegistryToken).get("email");
    if (email instanceof EmailNotifier) await email.close();
  },
  endpoints: [
    getNotificationSettings,
    updateNotificationSettings,
    updateNotificationDefaults,
    unsubscribePage,
    unsubscribe,
  ],
  on: workflowSubscriptions,
  tasks: [notificationDigestTask],
});

export { NotificationServiceToken, NotifierRegistryToken } from "./tokens.js";
export type { NotificationService } from "./service.js";
export type { NotifierRegistry } from "./registry.js";
export { notificationEvent, notificationIssue } from "./snapshot.js";
export { maskWebhookUrl } from "./chat/notifier.js";
export { CHAT_PROVIDERS } from "./notifier.js";
export type * from "./notifier.js";
