import { Clock, Db } from "../../../container/tokens.js";
import { runInTransaction } from "../../../db/transaction.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { badRequest } from "../../../http/errors.js";
import { NotificationSettingsToken, UnsubscribeKeyToken } from "../tokens.js";
import { CATEGORY_NAMES, escapeHtml } from "./render.js";
import { verifyUnsubscribe } from "./unsubscribe-token.js";

const UNSUBSCRIBE = "/api/0/notifications/unsubscribe/{token}/";

const html = (status: number, title: string, body: string) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>` +
      `<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:36em;margin:4em auto">${body}</body></html>`,
    { status, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } },
  );

/** Errors stay the API's JSON errors (a broken link is rare; its reader still sees what is wrong). */
const invalid = () =>
  badRequest("This unsubscribe link is not valid: change your notification settings in Faultline instead");

/**
 * The page a person reaches by clicking the link: a button, not the change itself (mail scanners
 * and link previews GET links; only the POST turns notifications off).
 */
export const unsubscribePage = defineEndpoint({
  method: "GET",
  path: UNSUBSCRIBE,
  operationId: "notifications.unsubscribePage",
  summary: "The page of an email's unsubscribe link: a button that turns that kind of email off",
  auth: "none",
  handler: ({ params, container }) => {
    const scope = verifyUnsubscribe(container.resolve(UnsubscribeKeyToken).secret, params.token);
    if (!scope) throw invalid();
    const kind = CATEGORY_NAMES[scope.category];
    return html(
      200,
      "Unsubscribe",
      `<h1>Turn off ${kind} emails?</h1><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
        `<button type="submit">Turn off ${kind} emails</button></form>`,
    );
  },
});

/**
 * RFC 8058 one-click unsubscribe: the mail client POSTs `List-Unsubscribe=One-Click` to the
 * link of the `List-Unsubscribe` header (the page's button posts the same). The signed token
 * names the user, organization, category and channel; that choice is turned off at once.
 */
export const unsubscribe = defineEndpoint({
  method: "POST",
  path: UNSUBSCRIBE,
  operationId: "notifications.unsubscribe",
  summary: "One-click unsubscribe (RFC 8058): turns off the category of email the signed link names, for its user",
  auth: "none",
  rawBody: true,
  handler: async ({ params, container }) => {
    const scope = verifyUnsubscribe(container.resolve(UnsubscribeKeyToken).secret, params.token);
    if (!scope) throw invalid();
    const db = container.resolve(Db);
    const member = await db
      .selectFrom("organization_members")
      .select("id")
      .where("organization_id", "=", scope.organizationId)
      .where("user_id", "=", scope.userId)
      .executeTakeFirst();
    // A former member gets no more email anyway: the link still answers, and stores nothing.
    if (member) {
      await runInTransaction(db, ({ trx }) =>
        container.resolve(NotificationSettingsToken).save(
          trx,
          scope.organizationId,
          [
            {
              userId: scope.userId,
              projectId: null,
              category: scope.category,
              channel: scope.channel,
              enabled: false,
            },
          ],
          container.resolve(Clock).now(),
        ),
      );
    }
    const kind = CATEGORY_NAMES[scope.category];
    return html(
      200,
      "Unsubscribed",
      `<h1>You will no longer receive ${kind} emails</h1><p>Turn them back on in Faultline's notification settings.</p>`,
    );
  },
});
