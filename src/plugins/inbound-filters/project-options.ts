import { z } from "zod";
import { defineProjectSettings, type ProjectSettingsContributor } from "../organizations/index.js";
import type { InboundFilterService, StoredFilters } from "./service.js";

const ERROR_MESSAGES = "filters:error_messages";
const RELEASES = "filters:releases";

/**
 * Sentry keeps a filter's patterns as one text, a pattern per line. Blank lines are dropped; each
 * pattern is checked as `faultline.api.inboundFilters.setPatterns` checks it.
 */
const patternLines = z
  .string({ error: "must be text, one pattern per line" })
  .max(100_000, "at most 100,000 characters")
  .transform((text) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ""),
  )
  .pipe(z.array(z.string().max(500, "each pattern at most 500 characters")).max(200, "at most 200 patterns"));

/**
 * The project's `options` (Sentry's project detail and `PUT`): the two filter patterns it holds
 * there. Other option keys Sentry knows are accepted and ignored, so a detail read from Sentry (or
 * from here) can be sent back as it is.
 */
const optionsBody = z.object({
  options: z.object({ [ERROR_MESSAGES]: patternLines.optional(), [RELEASES]: patternLines.optional() }),
});

function optionsOf(filters: StoredFilters) {
  return { [ERROR_MESSAGES]: filters.errorMessages.join("\n"), [RELEASES]: filters.releases.join("\n") };
}

/** Shows and changes the error-message and release patterns through the project's `options`. */
export function filterProjectOptions(service: () => InboundFilterService): ProjectSettingsContributor {
  return defineProjectSettings({
    id: "inbound-filters",
    body: optionsBody,
    load: async (db, projects) => {
      const stored = await service().readMany(
        db,
        projects.map((project) => project.id),
      );
      return new Map(projects.map((project) => [project.id, { options: optionsOf(stored.get(project.id)) }]));
    },
    save: async (scope, project, { options }) => {
      if (!options) return;
      const change: Partial<StoredFilters> = {};
      if (options[ERROR_MESSAGES] !== undefined) change.errorMessages = options[ERROR_MESSAGES];
      if (options[RELEASES] !== undefined) change.releases = options[RELEASES];
      await service().update(project.id, change, scope.trx);
      scope.afterCommit(() => service().forget(project.id));
    },
  });
}
