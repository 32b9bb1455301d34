import { coreMigration } from "./0001-core.js";
import { issuesMigration } from "./0002-issues.js";
import { deliveryMigration } from "./0004-delivery.js";
import { appsMigration } from "./0005-apps.js";
import { installationConsentMigration } from "./0007-installation-consent.js";
import { retentionMigration } from "./0009-retention.js";
import { keyRateLimitWindowMigration } from "./0012-key-rate-limit-window.js";
import { sentryHookHeadersMigration } from "./0014-sentry-hook-headers.js";
import { deliveryAttemptsMigration } from "./0016-delivery-attempts.js";
import { deliveryDestinationTypesMigration } from "./0017-delivery-destination-types.js";
import type { SchemaMigration } from "./types.js";

/**
 * The core's migrations: its own tables (tenancy, tokens, apps and installations, the delivery
 * outbox). Where a migration also created a plugin's tables, that part is the plugin's share of
 * the same name (`coreLedgerMigrations`); {@link mergeMigrationShares} joins them. Never rename or
 * edit a released one.
 */
export const coreMigrations: readonly SchemaMigration[] = [
  coreMigration,
  issuesMigration,
  deliveryMigration,
  appsMigration,
  installationConsentMigration,
  retentionMigration,
  keyRateLimitWindowMigration,
  sentryHookHeadersMigration,
  deliveryAttemptsMigration,
  deliveryDestinationTypesMigration,
];
export { mergeMigrationShares } from "./merge.js";
export type { SchemaMigration } from "./types.js";
