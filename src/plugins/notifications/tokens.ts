import type { InjectionToken } from "tsyringe";
import type { NotifierRegistry } from "./registry.js";
import type { NotificationService } from "./service.js";
import type { NotificationSettings } from "./settings/repository.js";
import type { UnsubscribeKey } from "./email/keys.js";

/** The instance's notification channels: a host registers its own (`Notifier`) in its plugin's `init`. */
export const NotifierRegistryToken: InjectionToken<NotifierRegistry> = Symbol("faultline.NotifierRegistry");
/** Tells members and chat rooms (alert actions, workflow notifications). */
export const NotificationServiceToken: InjectionToken<NotificationService> = Symbol("faultline.NotificationService");
export const NotificationSettingsToken: InjectionToken<NotificationSettings> = Symbol("faultline.NotificationSettings");
export const UnsubscribeKeyToken: InjectionToken<UnsubscribeKey> = Symbol("faultline.UnsubscribeKey");
