import type { IssueAlertRule } from "../tables.js";
import type { TransactionScope } from "../../../db/transaction.js";
import { TransactionMemo } from "../../../db/transaction-memo.js";
import { type DomainEvent, SYSTEM_ACTOR } from "../../../events/event-bus.js";
import type { ServiceHookSender } from "../../service-hooks/index.js";
import { type AppWebhookSender, errorData } from "../../webhooks/index.js";
import type { OrganizationLinks } from "../../organizations/index.js";
import { type EventFacts, ruleMatches, windowStart } from "./evaluate.js";
import type { IssueRuleRepository } from "./repository.js";
import {
  type Action,
  CHAT_ACTION,
  type Condition,
  EMAIL_ACTION,
  type Filter,
  type Interval,
  LEGACY_ACTION,
} from "./schemas.js";
import type { IssueLookup } from "../../issues/index.js";
import {
  type Notification,
  type NotificationService,
  notificationEvent,
  notificationIssue,
} from "../../notifications/index.js";

const MINUTE = 60_000;
/** Bound of the in-process memo of recent firings (it only saves queries; the table decides). */
const MEMO_LIMIT = 10_000;

type EmailAction = Extract<Action, { id: typeof EMAIL_ACTION }>;

interface LoadedRule {
  row: IssueAlertRule;
  actions: Action[];
  actionMatch: "all" | "any";
  conditions: Condition[];
  filters: Filter[];
  environment: string | null;
}

/**
 * Evaluates a project's issue alert rules for each stored event, inside the ingest transaction:
 * claims the firing (frequency throttle) and writes the `event.alert` and `event_alert.triggered`
 * deliveries to the outbox. Rules, counts and firings are memoised per transaction, so a batch
 * of events costs a few queries, not a few per event.
 */
export class IssueAlertProcessor {
  readonly #rules = new TransactionMemo<number, Promise<LoadedRule[]>>();
  readonly #counts = new TransactionMemo<string, Promise<number>>();
  /** Firings claimed in this transaction ("rule:issue" → ms), not yet committed. */
  readonly #claimed = new WeakMap<TransactionScope, Map<string, number>>();
  /** Committed firings of this process: a rule known to have fired recently is skipped without a query. */
  readonly #recent = new Map<string, number>();

  constructor(
    private readonly repository: IssueRuleRepository,
    private readonly serviceHooks: ServiceHookSender,
    private readonly appWebhooks: AppWebhookSender,
    private readonly links: OrganizationLinks,
    private readonly notifications: NotificationService,
    private readonly issues: IssueLookup,
  ) {}

  async onErrorCreated(domainEvent: DomainEvent<"error.created">, scope: TransactionScope): Promise<void> {
    const { issue, event, firstEvent, transition } = domainEvent.payload;
    // As Sentry: rules apply to unresolved issues only (a regression or a lifted snooze reopens first).
    if (issue.status !== "unresolved") return;
    const rules = await this.#activeRules(scope, issue.project.id);
    if (rules.length === 0) return;
    const facts: EventFacts = {
      level: event.level,
      environment: event.environment,
      tags: event.tags,
      firstEvent,
      transition,
      timesSeen: issue.count,
    };
    const at = event.received;
    const count = (interval: Interval, environment: string | null) =>
      this.#count(scope, issue.id, windowStart(at, interval), environment);
    const matched: LoadedRule[] = [];
    for (const rule of rules) {
      if (this.#throttled(scope, rule.row, issue.id, at)) continue;
      if (await ruleMatches(rule, facts, count)) matched.push(rule);
    }
    if (matched.length === 0) return;
    const granted = await this.repository.claim(
      scope.trx,
      matched.map((rule) => rule.row.id),
      issue.id,
      at,
    );
    const fired = matched.filter((rule) => granted.has(rule.row.id));
    if (fired.length === 0) return;
    this.#remember(scope, fired, issue.id, at);
    // A rule with no actions (made before actions existed, or given none) fires the integrations.
    const legacy = fired.filter(
      (rule) => rule.actions.length === 0 || rule.actions.some((a) => a.id === LEGACY_ACTION),
    );
    await this.#notifyIntegrations(scope, domainEvent, legacy);
    for (const rule of fired) await this.#notifyPeople(scope, domainEvent, rule);
  }

  /** Service hooks (`event.alert`) and installed apps' `event_alert.triggered` webhooks. */
  async #notifyIntegrations(scope: TransactionScope, domainEvent: DomainEvent<"error.created">, rules: LoadedRule[]) {
    if (rules.length === 0) return;
    const { issue, event } = domainEvent.payload;
    await this.serviceHooks.dispatch(
      scope,
      "event.alert",
      issue,
      event,
      rules.map((rule) => rule.row.name),
    );
    const links = await this.links.forOrganization(scope, domainEvent.organizationId);
    const data = errorData(issue, event, links);
    for (const rule of rules) {
      await this.appWebhooks.dispatch(scope, {
        organizationId: domainEvent.organizationId,
        category: "event_alert",
        eventType: "event_alert.triggered",
        actor: SYSTEM_ACTOR,
        data: () => ({ event: data, triggered_rule: rule.row.name }),
      });
    }
  }

  /** The rule's email and chat actions. */
  async #notifyPeople(scope: TransactionScope, domainEvent: DomainEvent<"error.created">, rule: LoadedRule) {
    const actions = rule.actions.filter((a) => a.id === EMAIL_ACTION || a.id === CHAT_ACTION);
    if (actions.length === 0) return;
    const { issue, event } = domainEvent.payload;
    const organization = await this.notifications.organization(scope, domainEvent.organizationId);
    const notification: Notification = {
      organization,
      category: "alerts",
      reason: "alert",
      headline: `Alert rule "${rule.row.name}" fired`,
      issue: notificationIssue(issue),
      notice: null,
      event: notificationEvent(event),
      comment: null,
      link: this.notifications.dashboardLink(organization.slug, `issues/${issue.id}/`),
      actorUserId: null,
    };
    for (const action of actions) {
      if (action.id === CHAT_ACTION) {
        const target = {
          kind: "chat",
          provider: action.provider,
          webhookUrl: action.webhookUrl,
          destinationId: `issue-rule:${rule.row.id}`,
        } as const;
        await this.notifications.toChat(scope, notification, target);
      } else if (action.id === EMAIL_ACTION) {
        await this.notifications.toUsers(scope, notification, await this.#emailTargets(scope, domainEvent, action));
      }
    }
  }

  /**
   * Who an email action reaches. Faultline has no ownership rules: an issue's owner is its
   * assignee (a user, or a team's members); an issue without one falls through as the action says.
   * `ActiveMembers` and `AllMembers` both mean the members whose membership is active (a
   * deactivated member has no access, so is never mailed).
   */
  async #emailTargets(scope: TransactionScope, domainEvent: DomainEvent<"error.created">, action: EmailAction) {
    const organizationId = domainEvent.organizationId;
    const recipients = this.notifications.recipients;
    if (action.targetType === "Member")
      return recipients.users(scope.trx, organizationId, [Number(action.targetIdentifier)]);
    if (action.targetType === "Team")
      return recipients.team(scope.trx, organizationId, Number(action.targetIdentifier));
    const row = await this.issues.find(organizationId, String(domainEvent.payload.issue.id), scope.trx);
    if (row?.assignee_user_id) return recipients.users(scope.trx, organizationId, [row.assignee_user_id]);
    if (row?.assignee_team_id) return recipients.team(scope.trx, organizationId, row.assignee_team_id);
    return action.fallthroughType === "NoOne" ? [] : recipients.all(scope.trx, organizationId);
  }

  #activeRules(scope: TransactionScope, projectId: number): Promise<LoadedRule[]> {
    return this.#rules.get(scope, projectId, async () =>
      (await this.repository.active(scope.trx, projectId)).map((row) => ({
        row,
        actions: row.actions ?? [],
        actionMatch: row.action_match,
        conditions: row.conditions as Condition[],
        filters: row.filters as Filter[],
        environment: row.environment,
      })),
    );
  }

  /** Counts are final for the whole batch once its events are inserted, so one read per window serves every event. */
  #count(scope: TransactionScope, issueId: number, since: Date, environment: string | null): Promise<number> {
    const key = `${issueId}:${since.getTime()}:${environment ?? "\0"}`;
    return this.#counts.get(scope, key, () => this.repository.countSince(scope.trx, issueId, since, environment));
  }

  /** Known to have fired less than its frequency ago (in this transaction, or committed by this process). */
  #throttled(scope: TransactionScope, rule: IssueAlertRule, issueId: number, at: Date): boolean {
    const key = `${rule.id}:${issueId}`;
    const last = this.#claimed.get(scope)?.get(key) ?? this.#recent.get(key);
    return last !== undefined && at.getTime() < last + rule.frequency * MINUTE;
  }

  #remember(scope: TransactionScope, fired: LoadedRule[], issueId: number, at: Date): void {
    let claimed = this.#claimed.get(scope);
    if (!claimed) {
      const pending = (claimed = new Map());
      this.#claimed.set(scope, pending);
      // Only a committed claim may skip queries later: a rolled-back one never happened.
      scope.afterCommit(() => {
        if (this.#recent.size + pending.size > MEMO_LIMIT) this.#recent.clear();
        for (const [key, ms] of pending) this.#recent.set(key, Math.max(ms, this.#recent.get(key) ?? 0));
      });
    }
    for (const rule of fired) claimed.set(`${rule.row.id}:${issueId}`, at.getTime());
  }
}
