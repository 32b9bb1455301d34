import type { ChatProvider, Notification } from "../notifier.js";
import { subjectOf } from "../subject.js";

/** Provider limits (their documentation): what a post must stay within to be accepted. */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3_000, headerText: 150, fallbackText: 3_000 } as const;
export const DISCORD_LIMITS = {
  title: 256,
  description: 4_096,
  fieldName: 256,
  fieldValue: 1_024,
  fields: 25,
  footer: 2_048,
  total: 6_000,
} as const;
export const TEAMS_CARD_VERSION = "1.4";

const LEVEL_COLORS: Record<string, number> = {
  fatal: 0xa4133c,
  error: 0xe03e2f,
  warning: 0xf5a623,
  info: 0x2f80ed,
  debug: 0x8d99ae,
};

/** At most `limit` characters (a whole code point more is never cut in half). */
export function clip(text: string, limit: number): string {
  const chars = [...text];
  return chars.length > limit ? `${chars.slice(0, limit - 1).join("")}…` : text;
}

function stack(n: Notification, frames = 5): string | null {
  const event = n.event;
  if (!event) return null;
  const head = event.exception ? `${event.exception.type}: ${event.exception.value}` : event.message;
  const lines = event.frames
    .slice(0, frames)
    .map((f) => `at ${f.function ?? "?"} (${f.file ?? "?"}${f.line === null ? "" : `:${f.line}`})`);
  return [head, ...lines].join("\n");
}

/** Slack's mrkdwn reserves &, < and > (its documentation: escape them, nothing else). */
const slackEscape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** Slack: Block Kit with a plain-text fallback (`text`), within Slack's block and text limits. */
export function slackBody(n: Notification): Record<string, unknown> {
  const subject = subjectOf(n);
  const title = `${subject.label}: ${subject.title}`;
  const linked = n.link ? `<${n.link}|${slackEscape(clip(title, 300))}>` : slackEscape(clip(title, 300));
  const trace = stack(n);
  const blocks: Array<Record<string, unknown>> = [
    { type: "header", text: { type: "plain_text", text: clip(n.headline, SLACK_LIMITS.headerText), emoji: false } },
    {
      type: "section",
      text: { type: "mrkdwn", text: clip(`*${linked}*\n${slackEscape(subject.subtitle)}`, SLACK_LIMITS.sectionText) },
    },
    {
      type: "section",
      fields: subject.facts.map(([name, value]) => ({
        type: "mrkdwn",
        text: clip(`*${name}*\n${slackEscape(value)}`, 2_000),
      })),
    },
  ];
  if (trace)
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: clip("```" + slackEscape(trace) + "```", SLACK_LIMITS.sectionText) },
    });
  if (n.comment)
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: clip(`> ${slackEscape(n.comment)}`, SLACK_LIMITS.sectionText) },
    });
  if (n.link)
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open in Faultline" }, url: n.link }],
    });
  return {
    text: clip(`${n.headline}: ${title}`, SLACK_LIMITS.fallbackText),
    blocks: blocks.slice(0, SLACK_LIMITS.blocks),
  };
}

/** Discord: one embed, within its per-field limits and its 6,000-character total. */
export function discordBody(n: Notification): Record<string, unknown> {
  const L = DISCORD_LIMITS;
  const subject = subjectOf(n);
  const title = clip(`${subject.label}: ${subject.title}`, L.title);
  const trace = stack(n);
  const description = clip(
    [
      n.headline,
      subject.subtitle,
      trace ? "```\n" + clip(trace, 1_500) + "\n```" : "",
      n.comment ? `> ${clip(n.comment, 1_000)}` : "",
    ]
      .filter(Boolean)
      .join("\n"),
    Math.min(L.description, L.total - title.length - 400),
  );
  const fields = subject.facts.map(([name, value]) => ({ name, value: clip(value, 100), inline: true }));
  return {
    embeds: [
      {
        title,
        ...(n.link && { url: n.link }),
        description,
        color: LEVEL_COLORS[subject.level] ?? LEVEL_COLORS.error,
        fields: fields.slice(0, L.fields),
        footer: { text: clip(`Faultline · ${n.organization.slug}`, 100) },
        timestamp: subject.timestamp,
      },
    ],
  };
}

/** Microsoft Teams (a Workflows webhook): a message carrying one Adaptive Card. */
export function teamsBody(n: Notification): Record<string, unknown> {
  const subject = subjectOf(n);
  const trace = stack(n);
  const body: Array<Record<string, unknown>> = [
    { type: "TextBlock", text: clip(n.headline, 300), wrap: true, isSubtle: true },
    {
      type: "TextBlock",
      text: clip(`${subject.label}: ${subject.title}`, 500),
      wrap: true,
      weight: "Bolder",
      size: "Medium",
    },
    { type: "FactSet", facts: subject.facts.map(([title, value]) => ({ title, value: clip(value, 200) })) },
  ];
  if (trace)
    body.push({ type: "TextBlock", text: clip(trace, 2_000), wrap: true, fontType: "Monospace", size: "Small" });
  if (n.comment) body.push({ type: "TextBlock", text: clip(n.comment, 2_000), wrap: true });
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: TEAMS_CARD_VERSION,
          body,
          ...(n.link && { actions: [{ type: "Action.OpenUrl", title: "Open in Faultline", url: n.link }] }),
        },
      },
    ],
  };
}

/** Any other receiver: the notification as plain JSON. */
export function jsonBody(n: Notification): Record<string, unknown> {
  return {
    reason: n.reason,
    headline: n.headline,
    organization: n.organization.slug,
    url: n.link,
    issue: n.issue,
    notice: n.notice,
    event: n.event,
    comment: n.comment,
  };
}

export const CHAT_BODIES: Record<ChatProvider, (n: Notification) => Record<string, unknown>> = {
  slack: slackBody,
  discord: discordBody,
  teams: teamsBody,
  json: jsonBody,
};
