import type { InjectionToken } from "tsyringe";
import type { IssueAlertProcessor } from "./issue-rules/processor.js";
import type { IssueRuleRepository } from "./issue-rules/repository.js";
import type { IssueRuleService } from "./issue-rules/service.js";
import type { MetricAlertEvaluator } from "./metric-rules/evaluator.js";
import type { MetricRuleRepository } from "./metric-rules/repository.js";
import type { MetricRuleService } from "./metric-rules/service.js";

export const IssueRuleRepositoryToken: InjectionToken<IssueRuleRepository> = Symbol("faultline.IssueRuleRepository");
export const IssueRuleServiceToken: InjectionToken<IssueRuleService> = Symbol("faultline.IssueRuleService");
export const IssueAlertProcessorToken: InjectionToken<IssueAlertProcessor> = Symbol("faultline.IssueAlertProcessor");
export const MetricRuleRepositoryToken: InjectionToken<MetricRuleRepository> = Symbol("faultline.MetricRuleRepository");
export const MetricRuleServiceToken: InjectionToken<MetricRuleService> = Symbol("faultline.MetricRuleService");
export const MetricAlertEvaluatorToken: InjectionToken<MetricAlertEvaluator> = Symbol("faultline.MetricAlertEvaluator");
