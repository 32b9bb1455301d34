import type { InjectionToken } from "tsyringe";
import type { ServiceHookDispatcher } from "./dispatcher.js";
import type { ServiceHookRepository } from "./repository.js";
import type { ServiceHookService } from "./service.js";

export const ServiceHookServiceToken: InjectionToken<ServiceHookService> = Symbol("faultline.ServiceHookService");
export const ServiceHookRepositoryToken: InjectionToken<ServiceHookRepository> = Symbol(
  "faultline.ServiceHookRepository",
);

/** What other plugins (alerts) use of the dispatcher: sending `event.created` / `event.alert` to a project's hooks. */
export type ServiceHookSender = Pick<ServiceHookDispatcher, "dispatch">;

export const ServiceHookDispatcherToken: InjectionToken<ServiceHookDispatcher> = Symbol(
  "faultline.ServiceHookDispatcher",
);
