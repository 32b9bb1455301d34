import type { SchemaMigration } from "./types.js";

/**
 * 0004_delivery, the core's share: the delivery outbox, and app/OAuth token bookkeeping. Service
 * hooks and the app request log are their plugins' shares of the same migration.
 */
export const deliveryMigration: SchemaMigration = {
  name: "0004_delivery",
  statements: (s) => [
    `ALTER TABLE ${s}.apps ADD COLUMN webhook_status text NOT NULL DEFAULT 'active' CHECK (webhook_status IN ('active', 'disabled'))`,
    `ALTER TABLE ${s}.api_tokens ADD COLUMN refresh_token_hash text UNIQUE`,
    // One row per delivery; the body is fixed at enqueue so every retry sends the same bytes.
    `CREATE TABLE ${s}.deliveries (
      id uuid PRIMARY KEY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      destination_type text NOT NULL CHECK (destination_type IN ('service_hook', 'app')),
      destination_id text NOT NULL,
      installation_uuid uuid,
      url text NOT NULL,
      secret text NOT NULL,
      event_type text NOT NULL,
      resource text NOT NULL,
      body text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      last_attempt_at timestamptz,
      last_response_code integer,
      last_error text,
      date_created timestamptz NOT NULL,
      date_finished timestamptz
    )`,
    `CREATE INDEX deliveries_due ON ${s}.deliveries (next_attempt_at) WHERE status = 'pending'`,
    `CREATE INDEX deliveries_listing ON ${s}.deliveries (organization_id, date_created DESC, id DESC)`,
    `CREATE INDEX deliveries_destination ON ${s}.deliveries (destination_type, destination_id, status)`,
    `CREATE INDEX deliveries_finished ON ${s}.deliveries (date_finished) WHERE date_finished IS NOT NULL`,
    `CREATE TABLE ${s}.delivery_destinations (
      destination_type text NOT NULL,
      destination_id text NOT NULL,
      last_success_at timestamptz,
      first_failure_at timestamptz,
      PRIMARY KEY (destination_type, destination_id)
    )`,
  ],
};
