import type { Notifier } from "../notifier.js";
import { CHAT_BODIES } from "./render.js";

/**
 * What the delivery log and the rules API show of a chat webhook URL: the origin and the last
 * four characters. The whole URL is a credential (anyone holding it can post to the room).
 */
export function maskWebhookUrl(url: string): string {
  const origin = URL.canParse(url) ? new URL(url).origin : "";
  return `${origin}/…${url.slice(-4)}`;
}

/**
 * Chat rooms by incoming webhook: Slack (Block Kit), Discord (embeds), Microsoft Teams (Adaptive
 * Card) and plain JSON. Posts go out as webhook deliveries (the SSRF guard, timeout, retries);
 * a chat action names one room, so a digest is never needed: each post is one notification.
 */
export class ChatNotifier implements Notifier {
  readonly channel = "chat";
  readonly audience = "chat";

  render: Notifier["render"] = (notifications, target) => {
    const notification = notifications[0];
    if (target.kind !== "chat" || !notification) return null;
    return { address: target.webhookUrl, body: CHAT_BODIES[target.provider](notification) };
  };

  displayAddress(address: string): string {
    return maskWebhookUrl(address);
  }
}
