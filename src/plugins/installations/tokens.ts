import type { InjectionToken } from "tsyringe";
import type { InstallationAuthorizer } from "./access/oauth.js";
import type { InstallationRepository } from "./installations/repository.js";
import type { InstallationService } from "./installations/service.js";

export const InstallationServiceToken: InjectionToken<InstallationService> = Symbol("faultline.InstallationService");
export const InstallationRepositoryToken: InjectionToken<InstallationRepository> = Symbol(
  "faultline.InstallationRepository",
);
export const InstallationAuthorizerToken: InjectionToken<InstallationAuthorizer> = Symbol(
  "faultline.InstallationAuthorizer",
);
