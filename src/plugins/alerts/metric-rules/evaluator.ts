import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { MetricAlertIncident, MetricAlertRule } from "../tables.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import { SYSTEM_ACTOR } from "../../../events/event-bus.js";
import type { Logger } from "../../../logging/logger.js";
import type { AppWebhookSender } from "../../webhooks/index.js";
import type { OrganizationLinks } from "../../organizations/index.js";
import type { Notification, NotificationService } from "../../notifications/index.js";
import { type IncidentStep, incidentSteps } from "./evaluate.js";
import { metricAlertData } from "./payload.js";
import { type EventTerm, EventQueryError, parseEventQuery } from "./query.js";
import type { MetricRuleRepository } from "./repository.js";

const MINUTE = 60_000;

/** An incident's state as the event level of the same severity (a notification's colour). */
const INCIDENT_LEVELS: Record<Exclude<IncidentStep, "open">, string> = {
  critical: "fatal",
  warning: "warning",
  resolved: "info",
};

/** One incident transition of an evaluation, with the payload every destination is told. */
interface Transition {
  step: IncidentStep;
  incident: MetricAlertIncident;
  data: ReturnType<typeof metricAlertData>;
}
/** Rules evaluated per transaction (one slice of the worker task). */
const BATCH = 25;

/**
 * Evaluates due metric alert rules: each is locked (SKIP LOCKED) and moved to the next minute in
 * the transaction that records its incident transitions and enqueues their deliveries, so with
 * any number of workers a rule is evaluated once per minute and each transition sent once.
 */
export class MetricAlertEvaluator {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: MetricRuleRepository,
    private readonly appWebhooks: AppWebhookSender,
    private readonly links: OrganizationLinks,
    private readonly logger: Logger,
    private readonly notifications: NotificationService,
  ) {}

  /** One slice; true when more rules may be due. */
  evaluateDue(now: Date): Promise<boolean> {
    return runInTransaction(this.db(), async (scope) => {
      const rules = await this.repository.claimDue(scope.trx, now, BATCH);
      for (const rule of rules) await this.#evaluate(scope, rule, now);
      return rules.length === BATCH;
    });
  }

  async #evaluate(scope: TransactionScope, rule: MetricAlertRule, now: Date): Promise<void> {
    // Once per calendar minute, whatever the worker's polling interval.
    await this.repository.scheduleNext(
      scope.trx,
      rule.id,
      new Date(Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE),
    );
    const terms = this.#terms(rule);
    if (!terms) return;
    const since = new Date(now.getTime() - rule.time_window * MINUTE);
    const value = await this.repository.aggregate(scope.trx, rule, terms, since, now);
    let incident = await this.repository.openIncident(scope.trx, rule.id);
    const steps = incidentSteps(incident && incident.status !== "resolved" ? incident.status : null, value, {
      thresholdType: rule.threshold_type,
      triggers: rule.triggers,
      resolveThreshold: rule.resolve_threshold,
    });
    if (steps.length === 0) return;
    const links = await this.links.forOrganization(scope, rule.organization_id);
    const slugs = await this.repository.projectSlugs(rule.organization_id, rule.project_ids, scope.trx);
    const projects = rule.project_ids.flatMap((id) => slugs.get(id) ?? []);
    for (const step of steps) {
      incident = await this.#apply(scope, rule, incident, step, steps, value, since, now);
      const data = metricAlertData({
        rule,
        incident,
        step,
        value,
        projects,
        root: this.links.root(),
        organizationSlug: links.organizationSlug,
      });
      const transition = { step, incident, data };
      await this.#deliver(scope, rule, transition);
      await this.#notify(scope, rule, transition);
    }
  }

  /** The stored query, parsed. It was valid when saved; should the syntax ever narrow, the rule is skipped, not the batch. */
  #terms(rule: MetricAlertRule): EventTerm[] | null {
    try {
      return parseEventQuery(rule.query);
    } catch (error) {
      if (!(error instanceof EventQueryError)) throw error;
      this.logger.warn(
        { ruleId: rule.id, query: rule.query, reason: error.message },
        "faultline: metric alert rule skipped, its query no longer parses",
      );
      return null;
    }
  }

  async #apply(
    scope: TransactionScope,
    rule: MetricAlertRule,
    incident: MetricAlertIncident | undefined,
    step: IncidentStep,
    steps: IncidentStep[],
    value: number,
    since: Date,
    now: Date,
  ): Promise<MetricAlertIncident> {
    const { trx } = scope;
    if (step === "open") {
      const level = steps.find((s): s is "warning" | "critical" => s === "warning" || s === "critical") ?? "critical";
      const created = await this.repository.insertIncident(trx, {
        organization_id: rule.organization_id,
        rule_id: rule.id,
        identifier: await this.repository.nextIdentifier(trx, rule.organization_id),
        status: level,
        date_started: since,
        date_detected: now,
        date_closed: null,
      });
      await this.repository.recordActivity(trx, created.id, "open", value, now);
      return created;
    }
    if (!incident) throw new Error(`metric alert ${rule.id}: "${step}" without an open incident`);
    const updated = await this.repository.updateIncident(trx, incident.id, {
      status: step,
      date_closed: step === "resolved" ? now : null,
    });
    await this.repository.recordActivity(trx, incident.id, step, value, now);
    return updated;
  }

  /** The `metric_alert.*` app webhooks of one transition. */
  async #deliver(scope: TransactionScope, rule: MetricAlertRule, transition: Transition): Promise<void> {
    await this.appWebhooks.dispatch(scope, {
      organizationId: rule.organization_id,
      category: "metric_alert",
      eventType: `metric_alert.${transition.step}`,
      actor: SYSTEM_ACTOR,
      data: () => transition.data,
    });
  }

  /**
   * The trigger actions of one transition (email and chat): reaching a level runs that trigger's
   * actions, resolving runs every trigger's (each once). `open` runs none: the level it opened at
   * follows in the same evaluation.
   */
  async #notify(scope: TransactionScope, rule: MetricAlertRule, transition: Transition): Promise<void> {
    const { step, incident, data } = transition;
    if (step === "open") return;
    const triggers = step === "resolved" ? rule.triggers : rule.triggers.filter((trigger) => trigger.label === step);
    const actions = [
      ...new Map(triggers.flatMap((t) => t.actions ?? []).map((action) => [JSON.stringify(action), action])).values(),
    ];
    if (actions.length === 0) return;
    const organization = await this.notifications.organization(scope, rule.organization_id);
    const notification: Notification = {
      organization,
      category: "alerts",
      reason: "incident",
      headline: data.description_title,
      issue: null,
      notice: {
        label: `Incident ${incident.identifier}`,
        title: data.description_title,
        description: data.description_text,
        level: INCIDENT_LEVELS[step],
        facts: [
          ["Status", step],
          ["Projects", data.metric_alert.projects.join(", ") || "—"],
          ["Alert rule", rule.name],
        ],
        timestamp: data.metric_alert.date_detected,
      },
      event: null,
      comment: null,
      link: this.notifications.dashboardLink(organization.slug, "alerts/"),
      actorUserId: null,
    };
    const recipients = this.notifications.recipients;
    for (const action of actions) {
      if (action.type === "chat") {
        const target = { kind: "chat", provider: action.provider, webhookUrl: action.webhookUrl } as const;
        await this.notifications.toChat(scope, notification, { ...target, destinationId: `metric-rule:${rule.id}` });
        continue;
      }
      const id = Number(action.targetIdentifier);
      const users =
        action.targetType === "team"
          ? await recipients.team(scope.trx, rule.organization_id, id)
          : await recipients.users(scope.trx, rule.organization_id, [id]);
      await this.notifications.toUsers(scope, notification, users);
    }
  }
}
