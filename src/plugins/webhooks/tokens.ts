import type { InjectionToken } from "tsyringe";
import type { AppWebhookDispatcher } from "./dispatcher.js";

export const AppWebhookDispatcherToken: InjectionToken<AppWebhookDispatcher> = Symbol("faultline.AppWebhookDispatcher");
