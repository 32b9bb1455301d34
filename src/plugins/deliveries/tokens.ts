import type { InjectionToken } from "tsyringe";
import type { DeliveryRepository } from "./repository.js";

export const DeliveryRepositoryToken: InjectionToken<DeliveryRepository> = Symbol("faultline.DeliveryRepository");
