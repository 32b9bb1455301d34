// query.ts parses with the issues plugin's public entry, which loads the plugin (and tsyringe).
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { incidentSteps, levelFor, type Thresholds } from "../../src/plugins/alerts/metric-rules/evaluate.js";
import { windowText } from "../../src/plugins/alerts/metric-rules/payload.js";
import { EventQueryError, parseEventQuery } from "../../src/plugins/alerts/metric-rules/query.js";
import { thresholdErrors } from "../../src/plugins/alerts/metric-rules/schemas.js";

const above: Thresholds = {
  thresholdType: "above",
  triggers: [
    { label: "warning", alertThreshold: 5 },
    { label: "critical", alertThreshold: 10 },
  ],
  resolveThreshold: null,
};
const below: Thresholds = {
  thresholdType: "below",
  triggers: [
    { label: "warning", alertThreshold: 5 },
    { label: "critical", alertThreshold: 2 },
  ],
  resolveThreshold: 8,
};

describe("metric alert levels", () => {
  it("crosses strictly, the most severe trigger first", () => {
    expect(levelFor(5, above)).toBeNull();
    expect(levelFor(6, above)).toBe("warning");
    expect(levelFor(11, above)).toBe("critical");
    expect(levelFor(5, below)).toBeNull();
    expect(levelFor(4, below)).toBe("warning");
    expect(levelFor(1, below)).toBe("critical");
  });
});

describe("incident transitions", () => {
  it("opens with its level, moves between levels, resolves below every trigger when there is no resolve threshold", () => {
    expect(incidentSteps(null, 3, above)).toEqual([]);
    expect(incidentSteps(null, 6, above)).toEqual(["open", "warning"]);
    expect(incidentSteps(null, 20, above)).toEqual(["open", "critical"]);
    expect(incidentSteps("warning", 7, above)).toEqual([]);
    expect(incidentSteps("warning", 11, above)).toEqual(["critical"]);
    expect(incidentSteps("critical", 8, above)).toEqual(["warning"]);
    expect(incidentSteps("critical", 5, above)).toEqual(["resolved"]);
  });

  it("with a resolve threshold, stays open until the value is past it", () => {
    expect(incidentSteps("warning", 6, below)).toEqual([]); // 6 crosses nothing, but is not above 8
    expect(incidentSteps("warning", 8, below)).toEqual([]);
    expect(incidentSteps("warning", 9, below)).toEqual(["resolved"]);
    const withResolve: Thresholds = { ...above, resolveThreshold: 3 };
    expect(incidentSteps("critical", 4, withResolve)).toEqual([]);
    expect(incidentSteps("critical", 2, withResolve)).toEqual(["resolved"]);
  });
});

describe("metric rule validation", () => {
  it("reports every threshold problem", () => {
    expect(
      thresholdErrors({
        thresholdType: "above",
        triggers: [{ label: "critical", alertThreshold: 10 }],
        resolveThreshold: 10,
      }),
    ).toEqual({});
    expect(
      thresholdErrors({
        thresholdType: "above",
        triggers: [{ label: "warning", alertThreshold: 10 }],
        resolveThreshold: 11,
      }),
    ).toEqual({
      triggers: ["a critical trigger is required"],
      resolveThreshold: ["must be at or below every trigger threshold when thresholdType is above"],
    });
    expect(
      thresholdErrors({
        thresholdType: "below",
        triggers: [
          { label: "critical", alertThreshold: 1 },
          { label: "warning", alertThreshold: 1 },
        ],
        resolveThreshold: null,
      }).triggers,
    ).toEqual(["the warning threshold must be above the critical threshold when thresholdType is below"]);
  });

  it("accepts the event subset of the search syntax and refuses the rest", () => {
    expect(parseEventQuery("")).toEqual([]);
    expect(parseEventQuery('level:[error, fatal] !environment:staging release:1.0 browser:"Firefox 1"')).toEqual([
      { field: "level", values: ["error", "fatal"], negated: false },
      { field: "environment", values: ["staging"], negated: true },
      { field: "release", values: ["1.0"], negated: false },
      { field: "tag", key: "browser", values: ["Firefox 1"], negated: false },
    ]);
    for (const bad of ["is:unresolved", "timesSeen:>3", "hello", "level:loud", "has:browser"])
      expect(() => parseEventQuery(bad), bad).toThrow(EventQueryError);
  });

  it("describes windows in words", () => {
    expect([1, 5, 60, 120, 1440].map(windowText)).toEqual(["1 minute", "5 minutes", "1 hour", "2 hours", "1 day"]);
  });
});
