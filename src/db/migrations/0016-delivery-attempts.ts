import type { SchemaMigration } from "./types.js";

/**
 * The delivery log's history (docs/webhooks.md, "The delivery log"): one row per attempt — where
 * it went, what came back (no code when nothing answered), how long it took and the error — so a
 * failing destination can be told apart from a slow or refusing one. The delivery keeps its last attempt's duration beside its
 * last code and error, so the listing needs no join. Attempts go with their delivery (retention,
 * organization deletion).
 */
export const deliveryAttemptsMigration: SchemaMigration = {
  name: "0016_delivery_attempts",
  statements: (s) => [
    `ALTER TABLE ${s}.deliveries ADD COLUMN last_duration_ms integer`,
    `CREATE TABLE ${s}.delivery_attempts (
      delivery_id uuid NOT NULL REFERENCES ${s}.deliveries (id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      url text NOT NULL,
      response_code integer,
      error text,
      duration_ms integer NOT NULL,
      date_created timestamptz NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    )`,
  ],
};
