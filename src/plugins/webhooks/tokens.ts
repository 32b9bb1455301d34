import type { InjectionToken } from "tsyringe";
import type { AppWebhookDispatcher } from "./dispatcher.js";

/** What other plugins (alerts) use of the dispatcher: sending one app webhook to its subscribers. */
export type AppWebhookSender = Pick<AppWebhookDispatcher, "dispatch">;

export const AppWebhookDispatcherToken: InjectionToken<AppWebhookDispatcher> = Symbol("faultline.AppWebhookDispatcher");
