import type { Clock } from "../../../clock.js";
import type { Project } from "../../../db/schema.js";
import type { IssueAlertRule } from "../tables.js";
import { notFound } from "../../../http/errors.js";
import type { OrganizationService } from "../../organizations/index.js";
import type { IssueRuleRepository } from "./repository.js";
import { restoreMaskedUrls } from "../webhook-urls.js";
import type { IssueRuleInput } from "./schemas.js";

/** Postgres `integer` ids: anything else in the path is an unknown rule, never a database error. */
const RULE_ID = /^\d{1,9}$/;

/** Issue alert rule management; bodies arrive validated by the route schemas. */
export class IssueRuleService {
  constructor(
    private readonly repository: IssueRuleRepository,
    private readonly organizations: OrganizationService,
    private readonly clock: Clock,
  ) {}

  requireProject(organizationId: number, projectRef: string): Promise<Project> {
    return this.organizations.requireProject(organizationId, projectRef);
  }

  create(project: Project, input: IssueRuleInput): Promise<IssueAlertRule> {
    return this.repository.insert(project.organization_id, project.id, input, this.clock.now());
  }

  async require(project: Project, id: string): Promise<IssueAlertRule> {
    const rule = RULE_ID.test(id) ? await this.repository.find(project.id, Number(id)) : undefined;
    if (!rule) throw notFound();
    return rule;
  }

  /** Each field present replaces the stored one; every field is validated on its own, so the result is a valid rule. */
  async update(project: Project, id: string, input: Partial<IssueRuleInput>): Promise<IssueAlertRule> {
    const rule = await this.require(project, id);
    const actions = input.actions && restoreMaskedUrls(input.actions, rule.actions ?? []);
    const updated = await this.repository.update(project.id, rule.id, { ...input, ...(actions && { actions }) });
    if (!updated) throw notFound();
    return updated;
  }

  async delete(project: Project, id: string): Promise<void> {
    const rule = await this.require(project, id);
    await this.repository.delete(project.id, rule.id);
  }
}
