import type { ResolvedOptions } from "../../options.js";
import type { EmailSettings } from "./email/notifier.js";
import type { NotificationLinks } from "./service.js";

/** Email settings: the options', else `FAULTLINE_SMTP_URL` and `FAULTLINE_EMAIL_FROM`; null: no email channel. */
export function emailSettings(options: ResolvedOptions, env: NodeJS.ProcessEnv = process.env): EmailSettings | null {
  const configured = options.notifications.email;
  const url = configured?.url ?? env.FAULTLINE_SMTP_URL;
  if (!url) return null;
  if (!/^smtps?:\/\/[^/]/.test(url))
    throw new TypeError(`Invalid Faultline options: FAULTLINE_SMTP_URL must be an smtp:// or smtps:// URL`);
  const from = configured?.from ?? env.FAULTLINE_EMAIL_FROM;
  if (!from)
    throw new TypeError(
      `Invalid Faultline options: email needs a sender: set notifications.email.from or FAULTLINE_EMAIL_FROM`,
    );
  return { url, from, timeoutMs: options.delivery.timeoutMs };
}

/**
 * Where notifications link to: the dashboard's issue page, and this instance's API for one-click
 * unsubscribe links (`publicUrl`, else the dashboard's origin, with the mount prefix).
 */
export function notificationLinks(options: ResolvedOptions): NotificationLinks {
  const dashboardUrl = options.notifications.dashboardUrl ?? null;
  const origin = options.publicUrl ?? (dashboardUrl ? new URL(dashboardUrl).origin : null);
  return {
    dashboardUrl,
    apiRoot: origin === null ? null : `${origin.replace(/\/+$/, "")}${options.basePath}`,
  };
}
