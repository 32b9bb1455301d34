import type { InjectionToken } from "tsyringe";
import type { ScimGroupService } from "./groups/service.js";
import type { ScimRepository } from "./repository.js";
import type { ScimSetupService } from "./setup/service.js";
import type { ScimUnitOfWork } from "./requests/unit-of-work.js";
import type { ScimUserService } from "./users/service.js";

export const ScimRepositoryToken: InjectionToken<ScimRepository> = Symbol("faultline.ScimRepository");
export const ScimUnitOfWorkToken: InjectionToken<ScimUnitOfWork> = Symbol("faultline.ScimUnitOfWork");
export const ScimUserServiceToken: InjectionToken<ScimUserService> = Symbol("faultline.ScimUserService");
export const ScimGroupServiceToken: InjectionToken<ScimGroupService> = Symbol("faultline.ScimGroupService");
export const ScimSetupServiceToken: InjectionToken<ScimSetupService> = Symbol("faultline.ScimSetupService");
