/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk the providers' JSON shapes */
import { describe, expect, it } from "vitest";
import {
  DISCORD_LIMITS,
  SLACK_LIMITS,
  discordBody,
  slackBody,
  teamsBody,
} from "../../src/plugins/notifications/chat/render.js";
import { maskWebhookUrl } from "../../src/plugins/notifications/chat/notifier.js";
import { renderEmail } from "../../src/plugins/notifications/email/render.js";
import { signUnsubscribe, verifyUnsubscribe } from "../../src/plugins/notifications/email/unsubscribe-token.js";
import type { Notification, NotificationIssue } from "../../src/plugins/notifications/notifier.js";

/** A notification with everything as long and hostile as a real event can make it. */
function notification(overrides: Partial<Notification> = {}): Notification {
  const long = "<b>x</b> & 😀 ".repeat(2_000);
  return {
    organization: { id: 1, slug: "acme" },
    category: "alerts",
    reason: "alert",
    headline: `Alert rule "${long}" fired`,
    issue: {
      id: 7,
      shortId: "WEB-7",
      title: `TypeError: ${long}`,
      culprit: long,
      level: "error",
      status: "unresolved",
      count: 12,
      userCount: 3,
      firstSeen: "2026-11-29T10:00:00.000Z",
      lastSeen: "2026-11-29T10:05:00.000Z",
      project: { id: 2, slug: "web", name: "Web" },
    },
    event: {
      eventId: "a".repeat(32),
      message: long,
      environment: "production",
      release: "web@1.0.0",
      exception: { type: "TypeError", value: long },
      frames: Array.from({ length: 5 }, (_, i) => ({ function: `fn${i}`, file: "app.js", line: i, inApp: true })),
    },
    comment: long,
    notice: null,
    link: "https://app.example.com/admin/errors/acme/issues/7/",
    actorUserId: null,
    ...overrides,
  };
}

const chars = (text: string) => [...text].length;

describe("chat bodies stay within each provider's documented limits", () => {
  it("Slack: at most 50 blocks, section text ≤ 3,000, header ≤ 150, a fallback text, the link as a button", () => {
    const body = slackBody(notification()) as { text: string; blocks: Array<Record<string, any>> };
    expect(body.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    expect(chars(body.text)).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
    for (const block of body.blocks) {
      if (block.type === "header") expect(chars(block.text.text)).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
      if (block.type === "section" && block.text)
        expect(chars(block.text.text)).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      for (const field of block.fields ?? []) expect(chars(field.text)).toBeLessThanOrEqual(2_000);
    }
    expect(body.blocks.at(-1)).toEqual({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open in Faultline" }, url: notification().link }],
    });
    // mrkdwn control characters from the event are escaped, so a title cannot forge a link.
    expect(JSON.stringify(body.blocks[1])).not.toContain("<b>");
  });

  it("Discord: one embed within its field limits and its 6,000-character total", () => {
    const { embeds } = discordBody(notification()) as { embeds: Array<Record<string, any>> };
    expect(embeds).toHaveLength(1);
    const embed = embeds[0] as Record<string, any>;
    expect(chars(embed.title)).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(chars(embed.description)).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(embed.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
    const total =
      chars(embed.title) +
      chars(embed.description) +
      chars(embed.footer.text) +
      embed.fields.reduce((sum: number, f: { name: string; value: string }) => sum + chars(f.name) + chars(f.value), 0);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.total);
    expect(embed.url).toBe(notification().link);
  });

  it("Teams: a message with one Adaptive Card 1.4 and an Open URL action", () => {
    const body = teamsBody(notification()) as { type: string; attachments: Array<Record<string, any>> };
    expect(body.type).toBe("message");
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0]?.contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = body.attachments[0]?.content;
    expect(card).toMatchObject({
      type: "AdaptiveCard",
      version: "1.4",
      $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    });
    expect(card.actions).toEqual([{ type: "Action.OpenUrl", title: "Open in Faultline", url: notification().link }]);
  });

  it("a webhook URL is shown by its origin and last four characters only", () => {
    expect(maskWebhookUrl("https://hooks.slack.com/services/T000/B000/abcdefgh")).toBe("https://hooks.slack.com/…efgh");
  });
});

describe("email rendering", () => {
  it("escapes the event's text in the HTML part and keeps the subject one line", () => {
    const mail = renderEmail(
      [
        notification({
          issue: { ...(notification().issue as NotificationIssue), title: "A\r\nBcc: x@evil.test <script>" },
        }),
      ],
      "bob@example.com",
      "https://e.test/u/1/",
    );
    expect(mail.subject).toBe("[web] A Bcc: x@evil.test <script>");
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;");
    expect(mail.headers).toEqual({
      "List-Unsubscribe": "<https://e.test/u/1/>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
  });
});

describe("digest emails", () => {
  it("list the newest 50 updates and count the rest; the subject counts them all", () => {
    const updates = Array.from({ length: 120 }, (_, i) =>
      notification({
        headline: `update ${i}`,
        issue: { ...(notification().issue as NotificationIssue), id: i % 7, shortId: `WEB-${i % 7}` },
      }),
    );
    const mail = renderEmail(updates, "bob@example.com", null);
    expect(mail.subject).toBe("[acme] 120 updates on 7 issues");
    expect(mail.text.startsWith("…and 70 earlier updates.")).toBe(true);
    expect(mail.text).toContain("update 119");
    expect(mail.text).not.toContain("update 69\n");
    expect(mail.html.match(/margin:0 0 16px/g)).toHaveLength(50);
  });
});

describe("unsubscribe tokens", () => {
  const scope = { organizationId: 3, userId: 9, category: "workflow" as const, channel: "email" };
  it("round-trip with the key, and fail with another key or any change", () => {
    const token = signUnsubscribe("key-1", scope);
    expect(verifyUnsubscribe("key-1", token)).toEqual(scope);
    expect(verifyUnsubscribe("key-2", token)).toBeNull();
    const [payload, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ o: 3, u: 1, c: "workflow", ch: "email" })).toString("base64url");
    expect(verifyUnsubscribe("key-1", `${forged}.${mac}`)).toBeNull();
    expect(verifyUnsubscribe("key-1", `${payload}`)).toBeNull();
    expect(verifyUnsubscribe("key-1", `${payload}.${mac}.x`)).toBeNull();
  });
});
