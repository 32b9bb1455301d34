import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { NOTIFICATION_CATEGORIES, type NotificationCategory } from "../notifier.js";

/** What a one-click unsubscribe link turns off: one category on one channel, for one user of one organization. */
export interface UnsubscribeScope {
  organizationId: number;
  userId: number;
  category: NotificationCategory;
  channel: string;
}

const payloadSchema = z.object({
  o: z.number().int().positive(),
  u: z.number().int().positive(),
  c: z.enum(NOTIFICATION_CATEGORIES as [NotificationCategory, ...NotificationCategory[]]),
  ch: z.string().min(1).max(64),
});

const mac = (secret: string, payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");

/** `<payload>.<HMAC-SHA256>`, both base64url: what the link carries, unforgeable without the database's key. */
export function signUnsubscribe(secret: string, scope: UnsubscribeScope): string {
  const payload = Buffer.from(
    JSON.stringify({ o: scope.organizationId, u: scope.userId, c: scope.category, ch: scope.channel }),
  ).toString("base64url");
  return `${payload}.${mac(secret, payload)}`;
}

/** The scope of a genuine token, or null (malformed, or signed with another key). */
export function verifyUnsubscribe(secret: string, token: string): UnsubscribeScope | null {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const parsed = payloadSchema.safeParse(decoded);
  if (!parsed.success) return null;
  return { organizationId: parsed.data.o, userId: parsed.data.u, category: parsed.data.c, channel: parsed.data.ch };
}
