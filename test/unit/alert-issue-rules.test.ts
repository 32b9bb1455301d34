import { describe, expect, it } from "vitest";
import {
  type EventFacts,
  filterPasses,
  ruleMatches,
  windowStart,
} from "../../src/plugins/alerts/issue-rules/evaluate.js";
import { type Filter, issueRuleSchema } from "../../src/plugins/alerts/issue-rules/schemas.js";

const facts = (overrides: Partial<EventFacts> = {}): EventFacts => ({
  level: "error",
  environment: null,
  tags: [],
  firstEvent: false,
  transition: null,
  timesSeen: 1,
  ...overrides,
});
const noCount = async () => {
  throw new Error("must not count");
};

describe("issue rule filters", () => {
  it("level compares severity debug < info < warning < error < fatal", () => {
    const level = (match: "eq" | "gte" | "lte", wanted: Extract<Filter, { id: "level" }>["level"], actual: string) =>
      filterPasses({ id: "level", match, level: wanted }, facts({ level: actual }));
    expect(level("eq", "error", "error")).toBe(true);
    expect(level("eq", "error", "fatal")).toBe(false);
    expect(level("gte", "warning", "warning")).toBe(true);
    expect(level("gte", "warning", "fatal")).toBe(true);
    expect(level("gte", "warning", "info")).toBe(false);
    expect(level("lte", "info", "debug")).toBe(true);
    expect(level("lte", "info", "warning")).toBe(false);
    expect(level("lte", "fatal", "nonsense")).toBe(false);
  });

  it("tagged_event matches keys and values case-insensitively; ne/nc/ns hold when the tag is absent", () => {
    const tags: Array<[string, string]> = [["Browser", "Firefox 120"]];
    const tag = (match: "eq" | "ne" | "co" | "nc" | "is" | "ns", value: string | undefined, on = tags) =>
      filterPasses({ id: "tagged_event", key: "browser", match, value }, facts({ tags: on }));
    expect(tag("eq", "firefox 120")).toBe(true);
    expect(tag("eq", "firefox")).toBe(false);
    expect(tag("ne", "firefox")).toBe(true);
    expect(tag("co", "FOX")).toBe(true);
    expect(tag("nc", "chrome")).toBe(true);
    expect(tag("nc", "fire")).toBe(false);
    expect(tag("is", undefined)).toBe(true);
    expect(tag("ns", undefined)).toBe(false);
    expect(tag("ne", "x", [])).toBe(true);
    expect(tag("nc", "x", [])).toBe(true);
    expect(tag("ns", undefined, [])).toBe(true);
    expect(tag("eq", "x", [])).toBe(false);
  });

  it("issue_occurrences holds from the given count on", () => {
    expect(filterPasses({ id: "issue_occurrences", value: 3 }, facts({ timesSeen: 2 }))).toBe(false);
    expect(filterPasses({ id: "issue_occurrences", value: 3 }, facts({ timesSeen: 3 }))).toBe(true);
  });
});

describe("issue rule conditions", () => {
  const rule = (
    conditions: Parameters<typeof ruleMatches>[0]["conditions"],
    actionMatch: "all" | "any" = "all",
    environment: string | null = null,
  ) => ({ actionMatch, conditions, filters: [], environment });

  it("maps first_seen, regression and reappeared (snooze_expired or escalating) to the event's facts", async () => {
    const first = rule([{ id: "first_seen_event" }]);
    const regression = rule([{ id: "regression_event" }]);
    const reappeared = rule([{ id: "reappeared_event" }]);
    expect(await ruleMatches(first, facts({ firstEvent: true }), noCount)).toBe(true);
    expect(await ruleMatches(first, facts(), noCount)).toBe(false);
    expect(await ruleMatches(regression, facts({ transition: "regression" }), noCount)).toBe(true);
    expect(await ruleMatches(regression, facts({ transition: "escalating" }), noCount)).toBe(false);
    expect(await ruleMatches(reappeared, facts({ transition: "snooze_expired" }), noCount)).toBe(true);
    expect(await ruleMatches(reappeared, facts({ transition: "escalating" }), noCount)).toBe(true);
    expect(await ruleMatches(reappeared, facts({ transition: "regression" }), noCount)).toBe(false);
  });

  it("event_frequency is 'more than N', counted in the rule's environment, and skips counting when the issue is too young", async () => {
    const seen: Array<[string, string | null]> = [];
    const count = async (interval: string, environment: string | null) => {
      seen.push([interval, environment]);
      return 5;
    };
    const frequency = (value: number) => rule([{ id: "event_frequency", value, interval: "15m" }], "all", "production");
    expect(await ruleMatches(frequency(4), facts({ timesSeen: 9, environment: "production" }), count)).toBe(true);
    expect(await ruleMatches(frequency(5), facts({ timesSeen: 9, environment: "production" }), count)).toBe(false);
    expect(seen).toEqual([
      ["15m", "production"],
      ["15m", "production"],
    ]);
    expect(await ruleMatches(frequency(9), facts({ timesSeen: 9, environment: "production" }), noCount)).toBe(false);
    expect(await ruleMatches(frequency(1), facts({ timesSeen: 9, environment: "staging" }), noCount)).toBe(false);
  });

  it("all needs every condition, any needs one; counting only when it can decide", async () => {
    const mixed = [
      { id: "first_seen_event" as const },
      { id: "event_frequency" as const, value: 1, interval: "1m" as const },
    ];
    expect(await ruleMatches(rule(mixed, "all"), facts({ firstEvent: false, timesSeen: 5 }), noCount)).toBe(false);
    expect(await ruleMatches(rule(mixed, "any"), facts({ firstEvent: true, timesSeen: 5 }), noCount)).toBe(true);
    expect(await ruleMatches(rule(mixed, "all"), facts({ firstEvent: true, timesSeen: 5 }), async () => 2)).toBe(true);
    expect(await ruleMatches(rule(mixed, "any"), facts({ firstEvent: false, timesSeen: 5 }), async () => 1)).toBe(
      false,
    );
  });

  it("filters must all pass before any condition is looked at", async () => {
    const filtered = {
      ...rule([{ id: "every_event" }]),
      filters: [{ id: "level" as const, match: "eq" as const, level: "fatal" as const }],
    };
    expect(await ruleMatches(filtered, facts({ level: "error" }), noCount)).toBe(false);
    expect(await ruleMatches(filtered, facts({ level: "fatal" }), noCount)).toBe(true);
  });
});

describe("event_frequency windows", () => {
  it("are whole minutes: the current one plus the N−1 before it", () => {
    const at = new Date("2026-01-01T12:34:56.789Z");
    expect(windowStart(at, "1m").toISOString()).toBe("2026-01-01T12:34:00.000Z");
    expect(windowStart(at, "5m").toISOString()).toBe("2026-01-01T12:30:00.000Z");
    expect(windowStart(at, "15m").toISOString()).toBe("2026-01-01T12:20:00.000Z");
    expect(windowStart(at, "1h").toISOString()).toBe("2026-01-01T11:35:00.000Z");
    expect(windowStart(at, "1d").toISOString()).toBe("2025-12-31T12:35:00.000Z");
  });
});

describe("issue rule schema", () => {
  it("fills the documented defaults", () => {
    expect(issueRuleSchema.parse({ name: " x ", conditions: [{ id: "every_event" }] })).toEqual({
      name: "x",
      actionMatch: "all",
      conditions: [{ id: "every_event" }],
      filters: [],
      frequency: 30,
      environment: null,
      status: "active",
      actions: [],
    });
  });

  it("takes Sentry's email action, the chat action and the legacy integrations, and names what is wrong", () => {
    const parsed = issueRuleSchema.parse({
      name: "x",
      conditions: [{ id: "every_event" }],
      actions: [
        { id: "sentry.mail.actions.NotifyEmailAction", targetType: "Team", targetIdentifier: 4, uuid: "ignored" },
        { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", fallthroughType: "NoOne" },
        {
          id: "faultline.actions.NotifyChatAction",
          provider: "discord",
          webhookUrl: "https://discord.test/api/webhooks/1/a",
        },
        { id: "sentry.rules.actions.notify_event.NotifyEventAction" },
      ],
    });
    expect(parsed.actions).toEqual([
      {
        id: "sentry.mail.actions.NotifyEmailAction",
        targetType: "Team",
        targetIdentifier: "4",
        fallthroughType: "ActiveMembers",
      },
      {
        id: "sentry.mail.actions.NotifyEmailAction",
        targetType: "IssueOwners",
        targetIdentifier: null,
        fallthroughType: "NoOne",
      },
      {
        id: "faultline.actions.NotifyChatAction",
        provider: "discord",
        webhookUrl: "https://discord.test/api/webhooks/1/a",
      },
      { id: "sentry.rules.actions.notify_event.NotifyEventAction" },
    ]);
    const errors = (actions: unknown[]) =>
      issueRuleSchema
        .safeParse({ name: "x", conditions: [{ id: "every_event" }], actions })
        .error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    expect(errors([{ id: "sentry.mail.actions.NotifyEmailAction", targetType: "Member" }])).toEqual([
      "actions.0.targetIdentifier: a Team or Member target needs the team's or user's id",
    ]);
    expect(errors([{ id: "faultline.actions.NotifyChatAction", provider: "irc", webhookUrl: "ftp://x" }])).toEqual([
      "actions.0.provider: must be one of slack, discord, teams, json",
      "actions.0.webhookUrl: must be an http(s) URL",
    ]);
    expect(errors([{ id: "sentry.rules.actions.Unknown" }])).toEqual([
      'actions.0.id: Unknown action id: "sentry.rules.actions.Unknown"',
    ]);
  });
});
