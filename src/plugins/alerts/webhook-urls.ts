import { maskWebhookUrl } from "../notifications/index.js";

/** A chat action, of an issue rule or a metric trigger: what masking cares about. */
interface ChatLike {
  provider: string;
  webhookUrl: string;
}

const isChat = (action: object): action is ChatLike =>
  "webhookUrl" in action && typeof action.webhookUrl === "string" && "provider" in action;

/** The actions as the API shows them: a chat webhook URL is a credential, shown masked. */
export function maskActions<T extends object>(actions: readonly T[]): T[] {
  return actions.map((action) =>
    isChat(action) ? { ...action, webhookUrl: maskWebhookUrl(action.webhookUrl) } : action,
  );
}

/**
 * A chat action sent back with its masked URL (as GET shows it) keeps the URL stored for that
 * provider: clients that read a rule, change one field and send it back do not break its chat.
 */
export function restoreMaskedUrls<T extends object>(actions: readonly T[], stored: readonly object[]): T[] {
  const byMask = new Map(
    stored.flatMap((action) =>
      isChat(action) ? [[`${action.provider} ${maskWebhookUrl(action.webhookUrl)}`, action.webhookUrl] as const] : [],
    ),
  );
  return actions.map((action) => {
    if (!isChat(action)) return action;
    const kept = byMask.get(`${action.provider} ${action.webhookUrl}`);
    return kept ? { ...action, webhookUrl: kept } : action;
  });
}
