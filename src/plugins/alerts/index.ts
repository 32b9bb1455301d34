import { registerFactory } from "../../container/container.js";
import { Clock, Db, Logger } from "../../container/tokens.js";
import { alertsMergeParticipant } from "./merge.js";
import { definePlugin } from "../../plugin/plugin.js";
import { OrganizationLinksToken, OrganizationServiceToken } from "../organizations/index.js";
import { IssueRepositoryToken, IssueMergeParticipantToken } from "../issues/index.js";
import { NotificationServiceToken } from "../notifications/index.js";
import { ServiceHookDispatcherToken } from "../service-hooks/index.js";
import { AppWebhookDispatcherToken } from "../webhooks/index.js";
import { IssueAlertProcessor } from "./issue-rules/processor.js";
import { IssueRuleRepository } from "./issue-rules/repository.js";
import { issueRuleEndpoints } from "./issue-rules/routes.js";
import { IssueRuleService } from "./issue-rules/service.js";
import { MetricAlertEvaluator } from "./metric-rules/evaluator.js";
import { MetricRuleRepository } from "./metric-rules/repository.js";
import { metricRuleEndpoints } from "./metric-rules/routes.js";
import { MetricRuleService } from "./metric-rules/service.js";
import { alertPruneTask, metricAlertTask } from "./tasks.js";
import {
  IssueAlertProcessorToken,
  IssueRuleRepositoryToken,
  IssueRuleServiceToken,
  MetricAlertEvaluatorToken,
  MetricRuleRepositoryToken,
  MetricRuleServiceToken,
} from "./tokens.js";
import { alertsMigrations, alertsOwnMigrations } from "./migrations.js";

/**
 * Alert rules (docs/alerts.md): issue rules evaluated as each event is ingested (→ `event.alert`
 * service hooks, `event_alert.triggered` app webhooks) and metric rules evaluated every minute by
 * the worker (→ incidents and `metric_alert.*` app webhooks).
 */
export const alertsPlugin = definePlugin({
  id: "alerts",
  coreLedgerMigrations: alertsMigrations,
  migrations: alertsOwnMigrations,
  dependencies: ["organizations", "issues", "service-hooks", "webhooks", "notifications"],
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, IssueRuleRepositoryToken, () => new IssueRuleRepository(db));
    registerFactory(
      container,
      IssueRuleServiceToken,
      (c) =>
        new IssueRuleService(
          c.resolve(IssueRuleRepositoryToken),
          c.resolve(OrganizationServiceToken),
          c.resolve(Clock),
        ),
    );
    registerFactory(
      container,
      IssueAlertProcessorToken,
      (c) =>
        new IssueAlertProcessor(
          c.resolve(IssueRuleRepositoryToken),
          c.resolve(ServiceHookDispatcherToken),
          c.resolve(AppWebhookDispatcherToken),
          c.resolve(OrganizationLinksToken),
          c.resolve(NotificationServiceToken),
          c.resolve(IssueRepositoryToken),
        ),
    );
    container.register(IssueMergeParticipantToken, { useValue: alertsMergeParticipant });
    registerFactory(container, MetricRuleRepositoryToken, () => new MetricRuleRepository(db));
    registerFactory(
      container,
      MetricRuleServiceToken,
      (c) => new MetricRuleService(c.resolve(MetricRuleRepositoryToken), c.resolve(Clock)),
    );
    registerFactory(
      container,
      MetricAlertEvaluatorToken,
      (c) =>
        new MetricAlertEvaluator(
          db,
          c.resolve(MetricRuleRepositoryToken),
          c.resolve(AppWebhookDispatcherToken),
          c.resolve(OrganizationLinksToken),
          c.resolve(Logger),
          c.resolve(NotificationServiceToken),
        ),
    );
  },
  endpoints: [...issueRuleEndpoints, ...metricRuleEndpoints],
  on: {
    "error.created": (event, scope, { container }) =>
      container.resolve(IssueAlertProcessorToken).onErrorCreated(event, scope),
  },
  tasks: [metricAlertTask, alertPruneTask],
});

export { METRIC_ALERT_TASK_ID } from "./tasks.js";
export type {
  IssueStatsMinutelyTable,
  AlertRuleStatus,
  IssueAlertRulesTable,
  IssueAlertFiresTable,
  MetricTriggerLabel,
  MetricAlertRulesTable,
  MetricAlertIncidentsTable,
  MetricAlertIncidentActivityTable,
  MetricAlertSequencesTable,
  IssueAlertRule,
  MetricAlertRule,
  MetricAlertIncident,
} from "./tables.js";
