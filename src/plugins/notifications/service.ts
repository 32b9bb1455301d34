import type { Kysely } from "kysely";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";
import type { TransactionScope } from "../../db/transaction.js";
import type { NewDelivery, Outbox } from "../../delivery/outbox.js";
import type { UnsubscribeKey } from "./email/keys.js";
import { signUnsubscribe } from "./email/unsubscribe-token.js";
import type { ChatTarget, Notification, Notifier, UserRecipient } from "./notifier.js";
import type { Recipients } from "./recipients.js";
import type { OrganizationLinks } from "../organizations/index.js";
import type { NotifierRegistry } from "./registry.js";
import type { NotificationSettings } from "./settings/repository.js";

export interface NotificationLinks {
  /** The dashboard's URL (`notifications.dashboardUrl`), or null: notifications carry no link then. */
  dashboardUrl: string | null;
  /** Where this instance's API is reached from outside (`publicUrl` + `basePath`), for unsubscribe links; null: none. */
  apiRoot: string | null;
}

/**
 * Turns notifications into outbox rows, inside the transaction of the change that caused them (so
 * they are sent exactly when it commits): for people, on every personal channel they have not
 * turned off, throttled per user and issue; for chat rooms, one post per action.
 */
export class NotificationService {
  constructor(
    private readonly notifiers: NotifierRegistry,
    private readonly outbox: Outbox,
    private readonly settings: NotificationSettings,
    readonly recipients: Recipients,
    private readonly key: UnsubscribeKey,
    private readonly clock: Clock,
    private readonly links: NotificationLinks,
    private readonly minIntervalMinutes: number,
    private readonly orgLinks: OrganizationLinks,
  ) {}

  /**
   * A page of the dashboard (`issues/12/`, `alerts/`, "" for the organization's stream), or null
   * when no dashboard URL is configured.
   */
  dashboardLink(organizationSlug: string, page = ""): string | null {
    if (!this.links.dashboardUrl) return null;
    return `${this.links.dashboardUrl.replace(/\/+$/, "")}/${encodeURIComponent(organizationSlug)}/${page}`;
  }

  /**
   * The organization's slug, for links (notifications leave the process: they name it, not its
   * id), read once per transaction by the organizations plugin's links, as webhooks read it.
   */
  async organization(scope: TransactionScope, organizationId: number): Promise<{ id: number; slug: string }> {
    return { id: organizationId, slug: (await this.orgLinks.forOrganization(scope, organizationId)).organizationSlug };
  }

  /**
   * Tells these members, on each personal channel, unless it is their own doing or they turned
   * this category off (for this project or all). Within `minIntervalMinutes` of their last
   * message about the same issue on a channel, the notification waits for their next digest.
   */
  async toUsers(scope: TransactionScope, notification: Notification, users: readonly UserRecipient[]): Promise<void> {
    const targets = dedupe(users.filter((user) => user.userId !== notification.actorUserId));
    if (targets.length === 0) return;
    for (const notifier of this.notifiers.personal()) {
      const wanting = await this.settings.wanting(
        scope.trx,
        notification.organization.id,
        notification.issue?.project.id ?? null,
        notification.category,
        notifier.channel,
        targets.map((user) => user.userId),
      );
      // Rendered once per user who wants it; a user this channel cannot reach (no address) is skipped.
      const rendered = targets.flatMap((user) => {
        const delivery = wanting.has(user.userId) ? this.#delivery(notifier, [notification], user) : null;
        return delivery ? [{ user, delivery }] : [];
      });
      if (rendered.length === 0) continue;
      // The throttle is per issue; a notice (an incident's transition, a throttling episode) is rare by nature.
      const issueId = notification.issue?.id;
      const users = rendered.map(({ user }) => user);
      const now =
        issueId === undefined
          ? new Set(users.map((user) => user.userId))
          : await this.#claimThrottle(scope.trx, notifier.channel, issueId, users);
      await this.outbox.enqueue(
        scope,
        rendered.filter(({ user }) => now.has(user.userId)).map(({ delivery }) => delivery),
      );
      const held = users.filter((user) => !now.has(user.userId));
      if (held.length > 0) await this.#hold(scope.trx, notifier.channel, notification, held);
    }
  }

  /** Posts to a chat room (a chat action; the rule's frequency is its throttle). */
  async toChat(scope: TransactionScope, notification: Notification, target: ChatTarget): Promise<void> {
    const notifier = this.notifiers.chat();
    const delivery = notifier && this.#delivery(notifier, [notification], target);
    if (delivery) await this.outbox.enqueue(scope, [delivery]);
  }

  /** A digest of held notifications for one user on one channel (the digest task). */
  async sendDigest(
    scope: TransactionScope,
    channel: string,
    user: UserRecipient,
    notifications: readonly Notification[],
  ): Promise<void> {
    const notifier = this.notifiers.get(channel);
    const delivery = notifier && this.#delivery(notifier, notifications, user);
    if (delivery) await this.outbox.enqueue(scope, [delivery]);
  }

  /** A digest went out: its issues count as just told (the next single message waits the interval again). */
  async touchThrottle(
    trx: Kysely<Database>,
    channel: string,
    userId: number | null,
    issueIds: readonly number[],
    now: Date,
  ): Promise<void> {
    if (userId === null || this.minIntervalMinutes === 0) return;
    const unique = [...new Set(issueIds)].sort((a, b) => a - b);
    await trx
      .insertInto("notification_throttle")
      .values(unique.map((issueId) => ({ user_id: userId, issue_id: issueId, channel, last_sent_at: now })))
      .onConflict((oc) => oc.columns(["user_id", "issue_id", "channel"]).doUpdateSet({ last_sent_at: now }))
      .execute();
  }

  #delivery(
    notifier: Notifier,
    notifications: readonly Notification[],
    target: UserRecipient | ChatTarget,
  ): NewDelivery | null {
    const first = notifications[0];
    if (!first) return null;
    const unsubscribeUrl = target.kind === "user" ? this.#unsubscribeUrl(first, target.userId, notifier.channel) : null;
    const message = notifier.render(notifications, target, { unsubscribeUrl });
    if (!message) return null;
    return {
      organizationId: first.organization.id,
      destinationType: notifier.channel,
      destinationId: target.kind === "user" ? `user:${target.userId}` : target.destinationId,
      url: message.address,
      secret: "",
      eventType: notifications.length > 1 ? "notification.digest" : `notification.${first.reason}`,
      resource: first.category,
      body: () => message.body,
    };
  }

  #unsubscribeUrl(notification: Notification, userId: number, channel: string): string | null {
    if (!this.links.apiRoot) return null;
    const token = signUnsubscribe(this.key.secret, {
      organizationId: notification.organization.id,
      userId,
      category: notification.category,
      channel,
    });
    return `${this.links.apiRoot}/api/0/notifications/unsubscribe/${token}/`;
  }

  /**
   * Records that these users are told now, for those not told about this issue on this channel
   * within the interval; returns them. One statement, rows in user order (two batches touching the
   * same users lock them in the same order).
   */
  async #claimThrottle(
    trx: Kysely<Database>,
    channel: string,
    issueId: number,
    users: readonly UserRecipient[],
  ): Promise<Set<number>> {
    if (users.length === 0) return new Set();
    if (this.minIntervalMinutes === 0) return new Set(users.map((user) => user.userId));
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.minIntervalMinutes * 60_000);
    const rows = await trx
      .insertInto("notification_throttle")
      .values(
        [...users]
          .sort((a, b) => a.userId - b.userId)
          .map((user) => ({ user_id: user.userId, issue_id: issueId, channel, last_sent_at: now })),
      )
      .onConflict((oc) =>
        oc
          .columns(["user_id", "issue_id", "channel"])
          .doUpdateSet({ last_sent_at: now })
          .where("notification_throttle.last_sent_at", "<=", cutoff),
      )
      .returning("user_id")
      .execute();
    return new Set(rows.map((row) => row.user_id));
  }

  async #hold(
    trx: Kysely<Database>,
    channel: string,
    notification: Notification,
    users: UserRecipient[],
  ): Promise<void> {
    const now = this.clock.now();
    await trx
      .insertInto("notification_digest_items")
      .values(
        users.map((user) => ({
          organization_id: notification.organization.id,
          user_id: user.userId,
          channel,
          category: notification.category,
          notification: JSON.stringify(notification),
          date_created: now,
        })),
      )
      .execute();
  }
}

function dedupe(users: readonly UserRecipient[]): UserRecipient[] {
  return [...new Map(users.map((user) => [user.userId, user])).values()];
}
