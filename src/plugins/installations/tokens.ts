import type { InjectionToken } from "tsyringe";
import type { InstallationAuthorizer } from "./oauth.js";
import type { InstallationRepository } from "./repository.js";
import type { InstallationService } from "./service.js";

export const InstallationServiceToken: InjectionToken<InstallationService> = Symbol("faultline.InstallationService");
export const InstallationRepositoryToken: InjectionToken<InstallationRepository> = Symbol(
  "faultline.InstallationRepository",
);
export const InstallationAuthorizerToken: InjectionToken<InstallationAuthorizer> = Symbol(
  "faultline.InstallationAuthorizer",
);
