import type { TaskDefinition } from "../../worker/task.js";
import { IssueRuleRepositoryToken, MetricAlertEvaluatorToken } from "./tokens.js";

export const METRIC_ALERT_TASK_ID = "alerts.metric";
const HOUR = 3_600_000;
const PRUNE_BATCH = 5000;

/** Evaluates due metric alert rules. Rules are due once a minute; polling more often keeps the lag small. */
export const metricAlertTask: TaskDefinition = {
  id: METRIC_ALERT_TASK_ID,
  intervalMs: 15_000,
  run: ({ container, now }) => container.resolve(MetricAlertEvaluatorToken).evaluateDue(now),
};

/**
 * Drops per-minute counters older than the longest `event_frequency` interval (1 day, plus an
 * hour of slack) and firing state older than the longest `frequency` (30 days, plus a day).
 */
export const alertPruneTask: TaskDefinition = {
  id: "alerts.prune",
  intervalMs: HOUR,
  run: async ({ container, now }) => {
    const deleted = await container
      .resolve(IssueRuleRepositoryToken)
      .prune(new Date(now.getTime() - 25 * HOUR), new Date(now.getTime() - 31 * 24 * HOUR), PRUNE_BATCH);
    return deleted === PRUNE_BATCH;
  },
};
