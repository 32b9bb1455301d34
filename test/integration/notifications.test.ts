import * as Sentry from "@sentry/node";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, definePlugin, NotifierRegistryToken, SCOPES, tokens } from "../../src/index.js";
import { METRIC_ALERT_TASK_ID } from "../../src/plugins/alerts/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { httpCaller, inProcess, type RunningServer, serveFaultline } from "../helpers/server.js";
import { type SmtpServer, startSmtp } from "../helpers/smtp.js";
import { waitFor } from "../helpers/wait.js";

const MINUTE = 60_000;
const DASHBOARD = "https://app.example.com/admin/errors";
const PUBLIC = "https://errors.example.com";
const EMAIL_ACTION = "sentry.mail.actions.NotifyEmailAction";
const CHAT_ACTION = "faultline.actions.NotifyChatAction";

/** The raw value of a header as it was sent (mailparser turns List-* headers into objects). */
function rawHeader(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((header) => header.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(":") + 1).trim();
}

const recipientOf = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value[0]?.address;

/**
 * Email and chat notifications end to end: a real Sentry SDK sends events to a real host, alert
 * rules and issue workflow notify through the outbox, emails arrive at a real SMTP server (with
 * AUTH) and are parsed with mailparser, chat posts at a real HTTP receiver.
 */
describe("notifications: email over SMTP, chat webhooks, workflow", () => {
  // Frozen mid-minute and moved by hand: the throttle and the digest run on this clock.
  let now = new Date(Math.floor(Date.now() / MINUTE) * MINUTE + 15_000);
  const advance = (minutes: number) => void (now = new Date(now.getTime() + minutes * MINUTE));
  let instance: TestInstance;
  let server: RunningServer;
  let smtp: SmtpServer;
  let chat: Awaited<ReturnType<typeof startReceiver>>;
  let adaToken: string;
  let bobToken: string;
  let bobId: string;
  const call = httpCaller(() => server.url);

  const digest = () => instance.faultline.worker.runDue("ingest.digest");
  /** Sends every due delivery (retries included: the schedule here is immediate) until none is pending. */
  async function deliverAll(): Promise<void> {
    const db = instance.faultline.container.resolve(tokens.Db);
    await waitFor(
      async () => {
        await instance.faultline.worker.runDue("delivery.send");
        const pending = await db.selectFrom("deliveries").select("id").where("status", "=", "pending").execute();
        return pending.length === 0;
      },
      15_000,
      "every delivery sent",
    );
  }
  async function issueIdOf(title: string): Promise<string> {
    const list = await call("GET", `/api/0/organizations/acme/issues/?query=`, adaToken);
    const issue = (list.body as Array<{ id: string; title: string }>).find((i) => i.title.startsWith(title));
    expect(issue, `an issue titled ${title}`).toBeDefined();
    return issue?.id as string;
  }
  async function capture(error: Error): Promise<void> {
    Sentry.captureException(error);
    await Sentry.flush(5_000);
    await digest();
  }
  const mailsTo = (address: string) => smtp.received.filter((mail) => recipientOf(mail) === address);

  beforeAll(async () => {
    smtp = await startSmtp();
    chat = await startReceiver();
    instance = await createTestInstance({
      worker: false,
      clock: { now: () => now },
      publicUrl: PUBLIC,
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, retryDelays: [0, 0, 0, 0] },
      notifications: {
        email: { url: smtp.url, from: "Faultline <errors@example.com>" },
        dashboardUrl: DASHBOARD,
      },
    });
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme" });
    const ada = await api.users.create({ username: "ada", name: "Ada", email: "ada@example.com" });
    const bob = await api.users.create({ username: "bob", name: "Bob", email: "bob@example.com" });
    const cy = await api.users.create({ username: "cy", name: "Cy" });
    bobId = String(bob.id);
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    await api.members.add({ organization: "acme", user: bob.id, role: "member" });
    await api.members.add({ organization: "acme", user: cy.id, role: "member" });
    await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    adaToken = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    bobToken = (
      await api.tokens.create({ user: bob.id, scopes: ["org:read", "project:read", "event:read", "event:write"] })
    ).token;
    server = await serveFaultline(instance.faultline);
    const keys = await call("GET", "/api/0/projects/acme/web/keys/", adaToken);
    // The DSN names the public URL; the SDK here reaches the same host at its local address.
    const dsn = new URL((keys.body as Array<{ dsn: { public: string } }>)[0]?.dsn.public as string);
    dsn.host = new URL(server.url).host;
    dsn.protocol = "http:";
    Sentry.init({ dsn: dsn.toString(), defaultIntegrations: false, release: "web@1.0.0", environment: "production" });
  });
  afterAll(async () => {
    await Sentry.close(500);
    await server?.close();
    await instance?.close();
    await chat?.close();
    await smtp?.close();
  });

  it("an alert rule's email and chat actions: one email to the member and one Slack post, both linking the issue", async () => {
    const created = await call("POST", "/api/0/projects/acme/web/rules/", adaToken, {
      name: "New errors",
      conditions: [{ id: "first_seen_event" }],
      frequency: 5,
      actions: [
        { id: EMAIL_ACTION, targetType: "Member", targetIdentifier: Number(bobId) },
        { id: CHAT_ACTION, provider: "slack", webhookUrl: `${chat.url}/slack/T000/B000/secret-path` },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const shown = (created.body as { actions: Array<{ webhookUrl?: string }> }).actions[1]?.webhookUrl;
    expect(shown).not.toContain("secret-path");

    await capture(new TypeError("x is undefined"));
    await deliverAll();
    const issueId = await issueIdOf("TypeError");
    const link = `${DASHBOARD}/acme/issues/${issueId}/`;

    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0] as ParsedMail;
    expect(recipientOf(mail)).toBe("bob@example.com");
    expect(mail.from?.value[0]?.address).toBe("errors@example.com");
    expect(mail.subject).toBe("[web] TypeError: x is undefined");
    expect(mail.text).toContain('Alert rule "New errors" fired');
    expect(mail.text).toContain("Environment: production");
    expect(mail.text).toContain("Release: web@1.0.0");
    expect(mail.text).toContain(`Open in Faultline: ${link}`);
    expect(mail.text).toMatch(/TypeError: x is undefined\n {2}at /);
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@faultline>$/);
    expect(rawHeader(mail, "List-Unsubscribe")).toMatch(
      new RegExp(`^<${PUBLIC}/api/0/notifications/unsubscribe/[\\w-]+\\.[\\w-]+/>$`),
    );
    expect(rawHeader(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    expect(chat.received).toHaveLength(1);
    const post = chat.received[0]?.json as { text: string; blocks: Array<Record<string, unknown>> };
    expect(chat.received[0]?.path).toBe("/slack/T000/B000/secret-path");
    expect(post.text).toContain("TypeError: x is undefined");
    expect(post.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(post.blocks)).toContain(link);

    // The delivery log shows both, the chat URL masked (it is a credential).
    const log = await call("GET", "/api/0/organizations/acme/deliveries/", adaToken);
    const targets = (log.body as Array<{ target: { type: string; url: string }; state: string }>).map((d) => [
      d.target.type,
      d.target.url,
      d.state,
    ]);
    expect(targets).toContainEqual(["email", "mailto:bob@example.com", "delivered"]);
    const chatTarget = targets.find(([type]) => type === "chat");
    expect(chatTarget?.[2]).toBe("delivered");
    expect(chatTarget?.[1]).not.toContain("secret-path");
  });

  it("one-click unsubscribe (RFC 8058) turns that user's alert emails off; chat still posts", async () => {
    const link = rawHeader(smtp.received[0] as ParsedMail, "List-Unsubscribe")?.slice(1, -1) as string;
    const path = new URL(link).pathname;
    // Opening the link shows a button and changes nothing (mail scanners GET links).
    const page = await fetch(`${server.url}${path}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    expect((await call("GET", "/api/0/organizations/acme/notification-settings/", bobToken)).body.settings).toEqual([]);
    const tampered = await fetch(`${server.url}${path.replace(/\.(\w)/, ".x$1")}`, { method: "POST" });
    expect(tampered.status).toBe(400);

    const oneClick = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    const settings = await call("GET", "/api/0/organizations/acme/notification-settings/", bobToken);
    expect(settings.body.settings).toEqual([{ category: "alerts", channel: "email", project: null, enabled: false }]);

    await capture(new RangeError("index out of range"));
    await deliverAll();
    expect(smtp.received).toHaveLength(1);
    expect(chat.received).toHaveLength(2);
    expect(chat.received[1]?.json.text).toContain("RangeError");
  });

  it("workflow: the assignee, then subscribers hear of comments (a burst as one digest), a resolution and a regression; never of their own action", async () => {
    advance(10);
    const issueId = await issueIdOf("TypeError");
    const issuePath = `/api/0/organizations/acme/issues/${issueId}/`;
    expect((await call("PUT", issuePath, adaToken, { assignedTo: `user:${bobId}` })).status).toBe(200);
    await deliverAll();
    expect(mailsTo("bob@example.com").at(-1)?.text).toContain("Ada assigned");
    expect(mailsTo("ada@example.com")).toHaveLength(0);
    const detail = await call("GET", issuePath, bobToken);
    expect(detail.body).toMatchObject({ isSubscribed: true, subscriptionDetails: { reason: "assigned" } });

    // Ada comments twice within the interval: Bob's second message about this issue waits for a digest.
    const sentToBob = mailsTo("bob@example.com").length;
    for (const text of ["Looking into it", "Found it: a null user"]) {
      expect((await call("POST", `${issuePath}comments/`, adaToken, { text })).status).toBe(201);
    }
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(sentToBob);
    advance(6);
    await instance.faultline.worker.runDue("notifications.digest");
    await deliverAll();
    const digestMail = mailsTo("bob@example.com").at(-1) as ParsedMail;
    expect(mailsTo("bob@example.com")).toHaveLength(sentToBob + 1);
    expect(digestMail.subject).toBe("[acme] 2 updates on 1 issue");
    expect(digestMail.text).toContain("Ada commented on");
    expect(mailsTo("ada@example.com")).toHaveLength(0);

    // Bob resolves it: Ada (subscribed by commenting) hears of it, Bob does not.
    advance(6);
    expect((await call("PUT", issuePath, bobToken, { status: "resolved" })).status).toBe(200);
    await deliverAll();
    expect(mailsTo("ada@example.com")).toHaveLength(1);
    expect(mailsTo("ada@example.com")[0]?.text).toContain("Bob resolved");
    expect(mailsTo("bob@example.com")).toHaveLength(sentToBob + 1);

    // It happens again: both subscribers hear of the regression; Cy (no address, not subscribed) never.
    advance(6);
    await capture(new TypeError("x is undefined"));
    await deliverAll();
    expect(mailsTo("ada@example.com").at(-1)?.text).toContain("regressed");
    expect(mailsTo("bob@example.com").at(-1)?.text).toContain("regressed");
    expect(
      smtp.received.every((mail) => ["ada@example.com", "bob@example.com"].includes(recipientOf(mail) ?? "")),
    ).toBe(true);
  });

  it("a user who turns workflow emails off for a project gets none for it", async () => {
    advance(10);
    const off = await call("PUT", "/api/0/organizations/acme/notification-settings/", bobToken, {
      settings: [{ category: "workflow", project: "web", enabled: false }],
    });
    expect(off.status).toBe(200);
    const unknown = await call("PUT", "/api/0/organizations/acme/notification-settings/", bobToken, {
      settings: [{ category: "workflow", project: "nope", enabled: false }],
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("Unknown project: nope");
    const pager = await call("PUT", "/api/0/organizations/acme/notification-settings/", bobToken, {
      settings: [{ category: "workflow", channel: "pager", enabled: false }],
    });
    expect(pager.status).toBe(400);
    expect(pager.body.detail).toBe("Unknown channel: pager (this instance has: email)");
    const before = mailsTo("bob@example.com").length;
    const issueId = await issueIdOf("RangeError");
    expect(
      (await call("PUT", `/api/0/organizations/acme/issues/${issueId}/`, adaToken, { assignedTo: `user:${bobId}` }))
        .status,
    ).toBe(200);
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(before);
    // Back on (null removes the choice: the default, on, applies again).
    await call("PUT", "/api/0/organizations/acme/notification-settings/", bobToken, {
      settings: [{ category: "workflow", project: "web", enabled: null }],
    });
  });

  it("a team assignment tells its members; an explicit unsubscribe stands; the organization's default applies to members without a choice", async () => {
    advance(10);
    const { api } = instance.faultline;
    const team = await api.teams.create({ organization: "acme", slug: "backend", name: "Backend" });
    await api.teams.addMember({ organization: "acme", team: "backend", user: bobId });
    const issueId = await issueIdOf("RangeError");
    const issuePath = `/api/0/organizations/acme/issues/${issueId}/`;
    const bobBefore = mailsTo("bob@example.com").length;
    expect((await call("PUT", issuePath, adaToken, { assignedTo: `team:${team.id}` })).status).toBe(200);
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(bobBefore + 1);
    expect(mailsTo("bob@example.com").at(-1)?.text).toContain("to your team");

    // Bob unsubscribes explicitly; commenting later does not subscribe him again, and Ada's comment skips him.
    expect((await call("PUT", issuePath, bobToken, { isSubscribed: false })).status).toBe(200);
    expect((await call("POST", `${issuePath}comments/`, bobToken, { text: "not mine" })).status).toBe(201);
    expect((await call("GET", issuePath, bobToken)).body).toMatchObject({ isSubscribed: false });
    advance(10);
    expect((await call("POST", `${issuePath}comments/`, adaToken, { text: "taking it" })).status).toBe(201);
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(bobBefore + 1);

    // The organization turns workflow email off by default: Ada (subscribed by commenting, no choice of her own) is not told.
    const adaBefore = mailsTo("ada@example.com").length;
    const defaults = await call("PUT", "/api/0/organizations/acme/notification-settings/defaults/", adaToken, {
      settings: [{ category: "workflow", enabled: false }],
    });
    expect(defaults.status).toBe(200);
    expect(defaults.body.defaults).toEqual([{ category: "workflow", channel: "email", project: null, enabled: false }]);
    expect(
      (
        await call("PUT", "/api/0/organizations/acme/notification-settings/defaults/", bobToken, {
          settings: [{ category: "workflow", enabled: true }],
        })
      ).status,
    ).toBe(403);
    advance(10);
    expect((await call("POST", `${issuePath}comments/`, bobToken, { text: "still not mine" })).status).toBe(201);
    await deliverAll();
    expect(mailsTo("ada@example.com")).toHaveLength(adaBefore);
    await call("PUT", "/api/0/organizations/acme/notification-settings/defaults/", adaToken, {
      settings: [{ category: "workflow", enabled: null }],
    });

    // Ada snoozes it for 30 minutes; when the snooze ends (nobody's doing), she hears it is back.
    expect((await call("PUT", issuePath, adaToken, { status: "ignored", ignoreDuration: 30 })).status).toBe(200);
    advance(31);
    await instance.faultline.worker.runDue("issues.snooze-expiry");
    await deliverAll();
    expect(mailsTo("ada@example.com")).toHaveLength(adaBefore + 1);
    expect(mailsTo("ada@example.com").at(-1)?.text).toContain("is back: its snooze ended");
    expect(mailsTo("bob@example.com")).toHaveLength(bobBefore + 1);
  });

  it("SMTP refusals (451, 550) and a server that is down are retried until the email is accepted", async () => {
    advance(10);
    const db = instance.faultline.container.resolve(tokens.Db);
    const issueId = await issueIdOf("RangeError");
    const issuePath = `/api/0/organizations/acme/issues/${issueId}/`;
    const before = mailsTo("bob@example.com").length;
    smtp.refuse(451, 550);
    await call("PUT", issuePath, adaToken, { assignedTo: null });
    expect((await call("PUT", issuePath, adaToken, { assignedTo: `user:${bobId}` })).status).toBe(200);
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(before + 1);
    const delivery = await db
      .selectFrom("deliveries")
      .select("id")
      .where("destination_type", "=", "email")
      .orderBy("seq", "desc")
      .executeTakeFirstOrThrow();
    const history = await call("GET", `/api/0/organizations/acme/deliveries/${delivery.id}/`, adaToken);
    const attempts = (history.body as { history: Array<{ responseCode: number | null; error: string | null }> })
      .history;
    expect(attempts.map((a) => a.responseCode)).toEqual([503, 502, 250]);
    expect(attempts[0]?.error).toContain("SMTP 451");
    expect(attempts[1]?.error).toContain("SMTP 550");
    // Redelivered from the delivery log: the same message again (same Message-ID).
    const redelivered = await call("POST", `/api/0/organizations/acme/deliveries/${delivery.id}/redeliver/`, adaToken);
    expect(redelivered.status).toBe(202);
    await deliverAll();
    expect(mailsTo("bob@example.com")).toHaveLength(before + 2);
    expect(mailsTo("bob@example.com").at(-1)?.messageId).toBe(mailsTo("bob@example.com").at(-2)?.messageId);

    // The server goes away: the attempt fails (nothing answered) and the email waits, then goes out.
    advance(10);
    const port = smtp.port;
    const received = smtp.received;
    await smtp.close();
    await call("PUT", issuePath, adaToken, { assignedTo: null });
    await call("PUT", issuePath, adaToken, { assignedTo: `user:${bobId}` });
    await instance.faultline.worker.runDue("delivery.send");
    const waiting = await db
      .selectFrom("deliveries")
      .select(["status", "last_response_code", "last_error"])
      .where("destination_type", "=", "email")
      .orderBy("seq", "desc")
      .executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({ status: "pending", last_response_code: 0 });
    smtp = await startSmtp(port);
    await deliverAll();
    expect(smtp.received.filter((mail) => recipientOf(mail) === "bob@example.com")).toHaveLength(1);
    expect(received.length).toBeGreaterThan(0);
  });

  it("metric alert triggers email a user and post to Teams when the incident turns critical, and again when it resolves", async () => {
    advance(10);
    const db = instance.faultline.container.resolve(tokens.Db);
    const adaId = String(
      (await db.selectFrom("users").select("id").where("username", "=", "ada").executeTakeFirstOrThrow()).id,
    );
    const teamsUrl = `${chat.url}/teams/workflows/secret-sig`;
    const created = await call("POST", "/api/0/organizations/acme/alert-rules/", adaToken, {
      name: "Error spike",
      projects: ["web"],
      timeWindow: 5,
      triggers: [
        {
          label: "critical",
          alertThreshold: 1,
          actions: [
            { type: "email", targetType: "user", targetIdentifier: adaId },
            { type: "chat", provider: "teams", webhookUrl: teamsUrl },
          ],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rule = created.body as { id: string; triggers: Array<{ actions: Array<{ webhookUrl?: string }> }> };
    expect(rule.triggers[0]?.actions[1]?.webhookUrl).not.toContain("secret-sig");
    const refused = await call("POST", "/api/0/organizations/acme/alert-rules/", adaToken, {
      name: "x",
      projects: ["web"],
      timeWindow: 5,
      triggers: [{ label: "critical", alertThreshold: 1, actions: [{ type: "pagerduty" }] }],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('Unknown action type: \\"pagerduty\\"');

    const project = (await call("GET", "/api/0/projects/acme/web/", adaToken)).body as { id: string };
    const org = (await call("GET", "/api/0/organizations/acme/", adaToken)).body as { id: string };
    const captureWeb = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    for (let i = 0; i < 3; i++) await captureWeb(errorEvent({ fingerprint: ["metric-burst"] }), now);
    const adaMails = mailsTo("ada@example.com").length;
    const teamsPosts = () => chat.received.filter((request) => request.path === "/teams/workflows/secret-sig");
    await instance.faultline.worker.runDue(METRIC_ALERT_TASK_ID);
    await deliverAll();
    expect(mailsTo("ada@example.com")).toHaveLength(adaMails + 1);
    const critical = mailsTo("ada@example.com").at(-1) as ParsedMail;
    expect(critical.subject).toBe("[acme] Critical: Error spike");
    expect(critical.text).toContain("3 events in the last 5 minutes");
    expect(critical.text).toContain(`${DASHBOARD}/acme/alerts/`);
    expect(teamsPosts()).toHaveLength(1);
    const card = (teamsPosts()[0]?.json.attachments as Array<{ content: { version: string; body: unknown[] } }>)[0];
    expect(card?.content.version).toBe("1.4");
    expect(JSON.stringify(card?.content.body)).toContain("Critical: Error spike");

    // Sending the rule back as GET shows it (masked URL) keeps the stored URL.
    const put = await call("PUT", `/api/0/organizations/acme/alert-rules/${rule.id}/`, adaToken, {
      triggers: rule.triggers,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    advance(6);
    await instance.faultline.worker.runDue(METRIC_ALERT_TASK_ID);
    await deliverAll();
    expect(mailsTo("ada@example.com").at(-1)?.subject).toBe("[acme] Resolved: Error spike");
    expect(teamsPosts()).toHaveLength(2);
  });
});

/**
 * Organization "acme" with Ada (its owner, no address) and `members`, project "web" with one
 * issue, and Ada's in-process caller: what the smaller suites below start from.
 */
async function seedAcme(
  instance: TestInstance,
  members: ReadonlyArray<{ username: string; email?: string }>,
): Promise<{ call: ReturnType<typeof inProcess>; issuePath: string; userId: (username: string) => string }> {
  const { api } = instance.faultline;
  await api.organizations.create({ slug: "acme" });
  const ada = await api.users.create({ username: "ada", name: "Ada" });
  await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
  const ids = new Map<string, string>([["ada", String(ada.id)]]);
  for (const { username, email } of members) {
    const user = await api.users.create({ username, name: username[0]?.toUpperCase() + username.slice(1), email });
    await api.members.add({ organization: "acme", user: user.id, role: "member" });
    ids.set(username, String(user.id));
  }
  const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  const org = await api.organizations.get("acme");
  await captureFor(instance.faultline, { id: project.id, organizationId: org?.id as string })(errorEvent());
  const call = inProcess(instance.faultline, (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token);
  const [issue] = (await call("GET", "/api/0/organizations/acme/issues/")).body as Array<{ id: string }>;
  return {
    call,
    issuePath: `/api/0/organizations/acme/issues/${issue?.id}/`,
    userId: (username) => ids.get(username) as string,
  };
}

describe("notifications: a host's own channel", () => {
  it("a Notifier registered by a host plugin receives workflow notifications through the outbox, as email would", async () => {
    const inbox: Array<{ address: string; body: unknown }> = [];
    const inboxPlugin = definePlugin({
      id: "acme-inbox",
      dependencies: ["notifications"],
      init({ container }) {
        container.resolve(NotifierRegistryToken).register({
          channel: "acme-inbox",
          audience: "user",
          render: (items, to) => (to.kind === "user" ? { address: `user:${to.userId}`, body: items } : null),
          send: async (message) => {
            inbox.push({ address: message.address, body: JSON.parse(message.body) });
            return { status: 200, body: "", retryAfter: null, error: null, durationMs: 0 };
          },
        });
      },
    });
    const instance = await createTestInstance({ worker: false, plugins: [inboxPlugin] });
    try {
      const { call, issuePath, userId } = await seedAcme(instance, [{ username: "bob" }]);
      const bobId = userId("bob");
      expect((await call("PUT", issuePath, { assignedTo: `user:${bobId}` })).status).toBe(200);
      await instance.faultline.worker.runDue("delivery.send");
      expect(inbox).toHaveLength(1);
      expect(inbox[0]?.address).toBe(`user:${bobId}`);
      expect(inbox[0]?.body).toEqual([
        expect.objectContaining({ reason: "assigned", headline: expect.stringContaining("Ada assigned") }),
      ]);
      // The host's channel is a delivery like any other: in the delivery log.
      const log = await call("GET", "/api/0/organizations/acme/deliveries/");
      expect((log.body as Array<{ target: { type: string }; state: string }>)[0]).toMatchObject({
        target: { type: "acme-inbox" },
        state: "delivered",
      });
    } finally {
      await instance.close();
    }
  });
});

describe("notifications: two instances on one database", () => {
  it("send each email exactly once when both workers send at the same moment", async () => {
    const smtp = await startSmtp();
    const notifications = {
      email: { url: smtp.url, from: "errors@example.com" },
      dashboardUrl: DASHBOARD,
      minIntervalMinutes: 0,
    };
    const delivery = { allowPrivateNetworks: true };
    const first = await createTestInstance({ worker: false, notifications, delivery });
    const second = createFaultline({
      database: first.database,
      schema: first.schema,
      worker: false,
      notifications,
      delivery,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    try {
      await second.ready();
      const { api } = first.faultline;
      await api.organizations.create({ slug: "acme" });
      const ada = await api.users.create({ username: "ada", name: "Ada", email: "ada@example.com" });
      await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
      const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
      const org = await api.organizations.get("acme");
      const token = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
      const rule = await inProcess(first.faultline, token)("POST", "/api/0/projects/acme/web/rules/", {
        name: "Every new issue",
        conditions: [{ id: "first_seen_event" }],
        actions: [{ id: EMAIL_ACTION, targetType: "Member", targetIdentifier: ada.id }],
      });
      expect(rule.status).toBe(201);
      const capture = captureFor(first.faultline, { id: project.id, organizationId: org?.id as string });
      for (let i = 0; i < 8; i++) await capture(errorEvent({ fingerprint: [`issue-${i}`], message: `failure ${i}` }));
      await Promise.all([first.faultline.worker.runDue("delivery.send"), second.worker.runDue("delivery.send")]);
      await waitFor(async () => smtp.received.length >= 8, 10_000, "eight emails");
      await Promise.all([first.faultline.worker.runDue("delivery.send"), second.worker.runDue("delivery.send")]);
      expect(smtp.received).toHaveLength(8);
      expect(new Set(smtp.received.map((mail) => mail.messageId)).size).toBe(8);
    } finally {
      await second.close();
      await first.close();
      await smtp.close();
    }
  });
});

describe("notifications: SMTP over TLS", () => {
  for (const tls of ["starttls", "implicit"] as const) {
    it(`${tls === "starttls" ? "smtp:// upgrades with STARTTLS" : "smtps:// is TLS from the start"}, then authenticates and delivers`, async () => {
      const smtp = await startSmtp(0, tls);
      const instance = await createTestInstance({
        worker: false,
        delivery: { allowPrivateNetworks: true },
        notifications: { email: { url: smtp.url, from: "errors@example.com" }, dashboardUrl: DASHBOARD },
      });
      try {
        const { call, issuePath, userId } = await seedAcme(instance, [{ username: "bob", email: "bob@example.com" }]);
        await call("PUT", issuePath, { assignedTo: `user:${userId("bob")}` });
        await instance.faultline.worker.runDue("delivery.send");
        await waitFor(async () => smtp.received.length === 1, 10_000, "the email");
        expect(smtp.secure).toEqual([true]);
        expect(recipientOf(smtp.received[0] as ParsedMail)).toBe("bob@example.com");
      } finally {
        await instance.close();
        await smtp.close();
      }
    });
  }
});

describe("notifications: verified addresses", () => {
  it("an address the host's verifiedAddress refuses (or fails on) is never mailed; a verified one is", async () => {
    const smtp = await startSmtp();
    const asked: string[] = [];
    const instance = await createTestInstance({
      worker: false,
      delivery: { allowPrivateNetworks: true },
      notifications: {
        email: { url: smtp.url, from: "errors@example.com" },
        dashboardUrl: DASHBOARD,
        minIntervalMinutes: 0,
        verifiedAddress: async ({ email }) => {
          asked.push(email);
          if (email.startsWith("broken")) throw new Error("the host's check failed");
          return email.endsWith("@verified.example");
        },
      },
    });
    try {
      const { call, issuePath, userId } = await seedAcme(instance, [
        { username: "vic", email: "vic@verified.example" },
        { username: "una", email: "una@elsewhere.example" },
        { username: "bro", email: "broken@verified.example" },
      ]);
      const { api } = instance.faultline;
      const team = await api.teams.create({ organization: "acme", slug: "all" });
      for (const username of ["vic", "una", "bro"])
        await api.teams.addMember({ organization: "acme", team: "all", user: userId(username) });
      const assigned = await call("PUT", issuePath, { assignedTo: `team:${team.id}` });
      expect(assigned.status).toBe(200);
      await instance.faultline.worker.runDue("delivery.send");
      await waitFor(async () => smtp.received.length > 0, 10_000, "an email");
      await instance.faultline.worker.runDue("delivery.send");
      expect(asked.sort()).toEqual(["broken@verified.example", "una@elsewhere.example", "vic@verified.example"]);
      expect(smtp.received.map(recipientOf)).toEqual(["vic@verified.example"]);
    } finally {
      await instance.close();
      await smtp.close();
    }
  });
});

describe("notifications: an organization being throttled", () => {
  it("its owners and managers are told once, by email, when its quota is spent; other members are not", async () => {
    const smtp = await startSmtp();
    const instance = await createTestInstance({
      worker: false,
      delivery: { allowPrivateNetworks: true },
      notifications: { email: { url: smtp.url, from: "errors@example.com" }, dashboardUrl: DASHBOARD },
    });
    const server = await serveFaultline(instance.faultline);
    try {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "acme" });
      for (const [username, role] of [
        ["ada", "owner"],
        ["max", "manager"],
        ["bob", "member"],
      ] as const) {
        const user = await api.users.create({ username, name: username, email: `${username}@example.com` });
        await api.members.add({ organization: "acme", user: user.id, role });
      }
      const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
      await api.quotas.set("acme", { eventsPerHour: 2 });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await fetch(
          `${server.url}/api/${project.id}/store/?sentry_version=7&sentry_key=${project.keys[0]?.public}`,
          { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(errorEvent()) },
        );
        statuses.push(response.status);
      }
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
      // The refusal does not wait for the throttled event's transaction: send until its emails are out.
      await waitFor(
        async () => {
          await instance.faultline.worker.runDue("delivery.send");
          return smtp.received.length >= 2;
        },
        10_000,
        "two emails",
      );
      await instance.faultline.worker.runDue("delivery.send");
      expect(smtp.received.map(recipientOf).sort()).toEqual(["ada@example.com", "max@example.com"]);
      const mail = smtp.received[0] as ParsedMail;
      expect(mail.subject).toBe("[acme] Events refused: its hourly quota of 2 events is spent");
      expect(mail.text).toContain("Limit: 2 events per hour");
      expect(mail.text).toContain(`${DASHBOARD}/acme/`);
    } finally {
      await server.close();
      await instance.close();
      await smtp.close();
    }
  });
});
