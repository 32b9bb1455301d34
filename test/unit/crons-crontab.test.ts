import { describe, expect, it } from "vitest";
import { CrontabError, nextRun, parseCrontab } from "../../src/plugins/crons/schedule/crontab.js";

/** The next `count` runs after `from`, as ISO strings. */
function runs(expression: string, from: string, timeZone: string, count: number): string[] {
  const crontab = parseCrontab(expression);
  const out: string[] = [];
  let after = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = nextRun(crontab, after, timeZone);
    if (!next) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

describe("crontab evaluator", () => {
  it("steps, ranges and lists", () => {
    expect(runs("*/20 * * * *", "2026-01-01T10:05:00Z", "UTC", 4)).toEqual([
      "2026-01-01T10:20:00.000Z",
      "2026-01-01T10:40:00.000Z",
      "2026-01-01T11:00:00.000Z",
      "2026-01-01T11:20:00.000Z",
    ]);
    expect(runs("10-40/15 8,17 * * *", "2026-01-01T09:00:00Z", "UTC", 4)).toEqual([
      "2026-01-01T17:10:00.000Z",
      "2026-01-01T17:25:00.000Z",
      "2026-01-01T17:40:00.000Z",
      "2026-01-02T08:10:00.000Z",
    ]);
    // A run exactly at `after` is not the next one.
    expect(runs("0 * * * *", "2026-01-01T10:00:00Z", "UTC", 1)).toEqual(["2026-01-01T11:00:00.000Z"]);
  });

  it("month and weekday names, 7 for Sunday, aliases, and the day-of-month OR day-of-week rule", () => {
    // 2026-01-02 is a Friday.
    expect(runs("0 9 * jan-feb MON-fri", "2026-01-02T10:00:00Z", "UTC", 2)).toEqual([
      "2026-01-05T09:00:00.000Z",
      "2026-01-06T09:00:00.000Z",
    ]);
    expect(runs("0 0 * * 7", "2026-01-01T00:00:00Z", "UTC", 1)).toEqual(["2026-01-04T00:00:00.000Z"]);
    expect(runs("@daily", "2026-01-01T12:00:00Z", "UTC", 1)).toEqual(["2026-01-02T00:00:00.000Z"]);
    // The 15th or any Sunday.
    expect(runs("0 0 15 * sun", "2026-01-05T00:00:00Z", "UTC", 3)).toEqual([
      "2026-01-11T00:00:00.000Z",
      "2026-01-15T00:00:00.000Z",
      "2026-01-18T00:00:00.000Z",
    ]);
    expect(runs("0 0 29 2 *", "2026-01-01T00:00:00Z", "UTC", 1)).toEqual(["2028-02-29T00:00:00.000Z"]);
    expect(nextRun(parseCrontab("0 0 30 2 *"), new Date("2026-01-01T00:00:00Z"), "UTC")).toBeNull();
  });

  it("evaluates in the time zone across daylight-saving changes (Europe/Vienna)", () => {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST. 02:30 does not exist: it runs at 03:30 CEST.
    expect(runs("30 2 * * *", "2026-03-28T12:00:00Z", "Europe/Vienna", 3)).toEqual([
      "2026-03-29T01:30:00.000Z",
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z",
    ]);
    // 2026-10-25: 03:00 CEST becomes 02:00 CET. 02:30 happens twice: the job runs once, the first time.
    expect(runs("30 2 * * *", "2026-10-24T12:00:00Z", "Europe/Vienna", 3)).toEqual([
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
      "2026-10-27T01:30:00.000Z",
    ]);
    // Every half hour through the spring gap: no run is lost, none repeats.
    expect(runs("*/30 * * * *", "2026-03-29T00:10:00Z", "Europe/Vienna", 4)).toEqual([
      "2026-03-29T00:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-03-29T02:00:00.000Z",
    ]);
    expect(runs("0 9 * * *", "2026-11-01T00:00:00Z", "America/New_York", 2)).toEqual([
      "2026-11-01T14:00:00.000Z",
      "2026-11-02T14:00:00.000Z",
    ]);
  });

  it.each([
    ["* * * *", /expected 5 fields/],
    ["60 * * * *", /^minute: 60 is outside 0-59/],
    ["* 24 * * *", /^hour: 24/],
    ["* * 0 * *", /^day of month: 0/],
    ["* * * foo *", /^month: "foo" is not a number or a name/],
    ["* * * * 8", /^day of week: 8/],
    ["*/0 * * * *", /^minute: step "0"/],
    ["5-1 * * * *", /^minute: range "5-1" runs backwards/],
    ["1,,2 * * * *", /^minute: "" is not a valid entry/],
  ])("rejects %s", (expression, message) => {
    expect(() => parseCrontab(expression)).toThrow(CrontabError);
    expect(() => parseCrontab(expression)).toThrow(message);
  });
});
