import type { InjectionToken } from "tsyringe";
import type { UserFeedbackRepository } from "./repository.js";
import type { UserFeedbackService } from "./service.js";

export const UserFeedbackRepositoryToken: InjectionToken<UserFeedbackRepository> = Symbol(
  "faultline.UserFeedbackRepository",
);
export const UserFeedbackServiceToken: InjectionToken<UserFeedbackService> = Symbol("faultline.UserFeedbackService");
