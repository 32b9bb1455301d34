import type { InjectionToken } from "tsyringe";
import type { ExternalIssueRepository } from "./repository.js";
import type { ExternalIssueService } from "./service.js";

export const ExternalIssueRepositoryToken: InjectionToken<ExternalIssueRepository> = Symbol(
  "faultline.ExternalIssueRepository",
);
export const ExternalIssueServiceToken: InjectionToken<ExternalIssueService> = Symbol("faultline.ExternalIssueService");
