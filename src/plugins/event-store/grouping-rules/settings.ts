import { z } from "zod";
import { type ProjectSettingsContributor, storedProjectSettings } from "../../organizations/index.js";
import { parseFingerprintRules, parseStackTraceRules } from "../grouping/index.js";
import type { GroupingRulesStore } from "./store.js";

/**
 * One of Sentry's rule texts: one rule a line, `#` comments; null clears it as "" does. Every
 * bad line is named (`line N: why`) and nothing is saved.
 */
const rulesText = (parse: (text: string) => { errors: string[] }) =>
  z
    .string({ error: "must be text, one rule per line" })
    .max(100_000, "at most 100,000 characters")
    .nullable()
    .transform((text) => text ?? "")
    .superRefine((text, context) => {
      for (const message of parse(text).errors) context.addIssue({ code: "custom", message });
    });

/** Sentry's grouping fields of the project detail and `PUT` (docs/grouping.md). */
export const groupingRulesBody = z.object({
  fingerprintingRules: rulesText(parseFingerprintRules),
  groupingEnhancements: rulesText(parseStackTraceRules),
});

/** Shows and changes the project's grouping rules; a save applies to the next events this instance stores. */
export function groupingRulesSettings(store: () => GroupingRulesStore): ProjectSettingsContributor {
  return storedProjectSettings("event-store", groupingRulesBody, store);
}
