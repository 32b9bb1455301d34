import { coreMigration } from "./0001-core.js";
import { issuesMigration } from "./0002-issues.js";
import { scimMigration } from "./0003-scim.js";
import { deliveryMigration } from "./0004-delivery.js";
import { appsMigration } from "./0005-apps.js";
import { alertsMigration } from "./0006-alerts.js";
import { installationConsentMigration } from "./0007-installation-consent.js";
import { ingestQueueMigration } from "./0008-ingest-queue.js";
import { retentionMigration } from "./0009-retention.js";
import { rateLimitsMigration } from "./0010-rate-limits.js";
import { ingestOutcomesMigration } from "./0011-ingest-outcomes.js";
import { keyRateLimitWindowMigration } from "./0012-key-rate-limit-window.js";
import { sentryHookHeadersMigration } from "./0014-sentry-hook-headers.js";
import { releaseStatsMigration } from "./0015-release-stats.js";
import { deliveryAttemptsMigration } from "./0016-delivery-attempts.js";
import type { SchemaMigration } from "./types.js";

/** Every first-party migration, in name order (Kysely applies them by name). Never rename or edit a released one. */
export const coreMigrations: readonly SchemaMigration[] = [
  coreMigration, issuesMigration, scimMigration, deliveryMigration, appsMigration, alertsMigration, installationConsentMigration,
  ingestQueueMigration, retentionMigration, rateLimitsMigration, ingestOutcomesMigration, keyRateLimitWindowMigration,
  sentryHookHeadersMigration, releaseStatsMigration, deliveryAttemptsMigration,
];
export type { SchemaMigration } from "./types.js";
