import type { DependencyContainer } from "tsyringe";
import { z } from "zod";
import { parseOrThrow } from "../../http/validate.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { InboundFilterServiceToken } from "./tokens.js";

const patternList = z.array(z.string().trim().min(1, "must not be empty").max(500, "at most 500 characters")).max(200);

const patternsInput = z.object({
  /** Sentry's `filters:error_messages`: glob patterns matched against `Type: value` and the message. */
  errorMessages: patternList.optional(),
  /** Sentry's `filters:releases`: glob patterns matched against the event's release. */
  releases: patternList.optional(),
});

/** The error-message and release patterns of a project's inbound filters. */
export type FilterPatterns = z.input<typeof patternsInput>;

/** `faultline.api.inboundFilters`: what Sentry sets through a project's `options`. */
export function inboundFiltersApi(container: DependencyContainer) {
  const projectOf = async (organization: string | number, project: string | number) => {
    const service = container.resolve(OrganizationServiceToken);
    const found = await service.requireOrganization(organization);
    return service.requireProject(found.id, project);
  };
  return {
    /** A project's error-message and release patterns. */
    patterns: async (organization: string | number, project: string | number) => {
      const { errorMessages, releases } = await container
        .resolve(InboundFilterServiceToken)
        .read((await projectOf(organization, project)).id);
      return { errorMessages, releases };
    },
    /**
     * Replaces a project's error-message and/or release patterns (Sentry's glob syntax: `*` any
     * characters, `?` one, case-insensitive); a list left out stays as it is.
     */
    setPatterns: async (organization: string | number, project: string | number, patterns: FilterPatterns) => {
      const change = parseOrThrow(patternsInput, patterns);
      const { errorMessages, releases } = await container
        .resolve(InboundFilterServiceToken)
        .update((await projectOf(organization, project)).id, change);
      return { errorMessages, releases };
    },
  };
}
