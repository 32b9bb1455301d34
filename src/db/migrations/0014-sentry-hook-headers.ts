import type { SchemaMigration } from "./types.js";

/**
 * Sentry's webhook header names as an opt-in per app (docs/sentry-compatibility.md, "Sentry's
 * own words beside `svc`"): an app that sets `sentryHookHeaders` gets `Sentry-Hook-Resource` /
 * `-Timestamp` / `-Signature` beside the `Svc-Hook-*` ones, so receivers written against Sentry
 * verify unchanged. The delivery row keeps the choice made when it was queued (its signed body is
 * fixed then too), so a retry sends what the first attempt did.
 */
export const sentryHookHeadersMigration: SchemaMigration = {
  name: "0014_sentry_hook_headers",
  statements: (s) => [
    `ALTER TABLE ${s}.apps ADD COLUMN sentry_hook_headers boolean NOT NULL DEFAULT false`,
    `ALTER TABLE ${s}.deliveries ADD COLUMN sentry_hook_headers boolean NOT NULL DEFAULT false`,
  ],
};
