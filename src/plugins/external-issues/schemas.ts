import { z } from "zod";

/** `POST /api/0/svc-app-installations/{uuid}/external-issues/`: every field required. */
export const linkBody = z.object({
  // An integer per the contract; a numeric string is accepted too, as clients often send ids as strings.
  issueId: z.union(
    [
      z
        .number()
        .int("must be an integer issue id")
        .positive("must be a positive issue id")
        .max(Number.MAX_SAFE_INTEGER, "is not a known issue id"),
      z
        .string()
        .regex(/^\d{1,15}$/, "must be an integer issue id")
        .transform(Number),
    ],
    { error: "must be an integer issue id" },
  ),
  webUrl: z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).max(2000),
  /** The external tracker's project (Sentry's meaning, e.g. `JIRA-PROJ`); older apps send the issue's project slug. */
  project: z.string().trim().min(1, "must name the external project").max(100),
  identifier: z.string().min(1).max(200),
});

export type LinkBody = z.output<typeof linkBody>;
