import type { SchemaMigration } from "./types.js";

/**
 * Indexes and a keyset column for the app platform's endpoints (installation tokens, delivery
 * lists); the external issue links' index is that plugin's share.
 */
export const appsMigration: SchemaMigration = {
  name: "0005_apps",
  statements: (s) => [
    // Deliveries are keyed by a random UUID, which cannot break ties in a keyset cursor (the
    // cursor's offset is an integer): insertion order can.
    `ALTER TABLE ${s}.deliveries ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`,
    `CREATE INDEX deliveries_listing_seq ON ${s}.deliveries (organization_id, date_created DESC, seq DESC)`,
    // An installation's tokens: re-scoped when its app's scopes change, dropped on uninstall.
    `CREATE INDEX api_tokens_installation ON ${s}.api_tokens (installation_id) WHERE installation_id IS NOT NULL`,
    `CREATE INDEX apps_listing ON ${s}.apps (organization_id, date_created DESC, id DESC)`,
  ],
};
