import type { Clock } from "../../../clock.js";
import { hasChanges } from "../../../db/changes.js";
import type { MetricAlertRule } from "../tables.js";
import { fieldErrors, notFound } from "../../../http/errors.js";
import { restoreMaskedUrls } from "../webhook-urls.js";
import { EventQueryError, parseEventQuery } from "./query.js";
import type { MetricRuleColumns, MetricRuleRepository } from "./repository.js";
import { type MetricRuleInput, type MetricRuleUpdate, thresholdErrors } from "./schemas.js";

const RULE_ID = /^\d{1,9}$/;

/** Metric alert rule management: what the body schema cannot check (projects, query, thresholds). */
export class MetricRuleService {
  constructor(
    private readonly repository: MetricRuleRepository,
    private readonly clock: Clock,
  ) {}

  async create(organizationId: number, input: MetricRuleInput): Promise<MetricAlertRule> {
    return this.repository.insert(organizationId, await this.#columns(organizationId, input), this.clock.now());
  }

  async require(organizationId: number, id: string): Promise<MetricAlertRule> {
    const rule = RULE_ID.test(id) ? await this.repository.find(organizationId, Number(id)) : undefined;
    if (!rule) throw notFound();
    return rule;
  }

  async update(organizationId: number, id: string, patch: MetricRuleUpdate): Promise<MetricAlertRule> {
    const rule = await this.require(organizationId, id);
    // Nothing sent, nothing to validate or write: the rule as it is (see src/db/changes.ts).
    if (!hasChanges(patch)) return rule;
    const slugs = await this.repository.projectSlugs(organizationId, rule.project_ids);
    const merged: MetricRuleInput = {
      name: patch.name ?? rule.name,
      projects: patch.projects ?? rule.project_ids.flatMap((projectId) => slugs.get(projectId) ?? []),
      query: patch.query ?? rule.query,
      aggregate: patch.aggregate ?? rule.aggregate,
      timeWindow: patch.timeWindow ?? rule.time_window,
      thresholdType: patch.thresholdType ?? rule.threshold_type,
      triggers: patch.triggers
        ? patch.triggers.map((trigger) => ({
            ...trigger,
            actions: restoreMaskedUrls(
              trigger.actions,
              rule.triggers.flatMap((stored) => stored.actions ?? []),
            ),
          }))
        : rule.triggers.map((trigger) => ({ ...trigger, actions: trigger.actions ?? [] })),
      resolveThreshold: patch.resolveThreshold !== undefined ? patch.resolveThreshold : rule.resolve_threshold,
      status: patch.status ?? rule.status,
    };
    const updated = await this.repository.update(organizationId, rule.id, await this.#columns(organizationId, merged));
    if (!updated) throw notFound();
    return updated;
  }

  async delete(organizationId: number, id: string): Promise<void> {
    const rule = await this.require(organizationId, id);
    await this.repository.delete(organizationId, rule.id);
  }

  /** Validates the whole rule (every problem reported at once) and turns it into columns. */
  async #columns(organizationId: number, input: MetricRuleInput): Promise<MetricRuleColumns> {
    const errors = thresholdErrors(input);
    try {
      parseEventQuery(input.query);
    } catch (error) {
      if (!(error instanceof EventQueryError)) throw error;
      errors.query = [error.message];
    }
    const slugs = [...new Set(input.projects)];
    const projects = await this.repository.projectsBySlug(organizationId, slugs);
    const unknown = slugs.filter((slug) => !projects.some((project) => project.slug === slug));
    if (unknown.length > 0) errors.projects = unknown.map((slug) => `Unknown project: ${slug}`);
    if (Object.keys(errors).length > 0) throw fieldErrors(errors);
    return {
      name: input.name,
      project_ids: slugs.map((slug) => projects.find((project) => project.slug === slug)?.id as number),
      query: input.query,
      aggregate: input.aggregate,
      time_window: input.timeWindow,
      threshold_type: input.thresholdType,
      triggers: JSON.stringify(input.triggers),
      resolve_threshold: input.resolveThreshold,
      status: input.status,
    };
  }
}
