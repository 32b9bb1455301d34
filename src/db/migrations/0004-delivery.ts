import type { SchemaMigration } from "./types.js";

/** Service hooks, the delivery outbox, the app request log, and app/OAuth token bookkeeping. */
export const deliveryMigration: SchemaMigration = {
  name: "0004_delivery",
  statements: (s) => [
    `CREATE TABLE ${s}.service_hooks (
      id text PRIMARY KEY,
      seq integer GENERATED ALWAYS AS IDENTITY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
      url text NOT NULL,
      events text[] NOT NULL,
      secret text NOT NULL,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
      date_created timestamptz NOT NULL
    )`,
    `CREATE INDEX service_hooks_listing ON ${s}.service_hooks (project_id, date_created DESC, seq DESC)`,
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
    `CREATE TABLE ${s}.app_request_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      app_id integer NOT NULL REFERENCES ${s}.apps (id) ON DELETE CASCADE,
      organization_id integer NOT NULL,
      delivery_id uuid NOT NULL,
      attempt integer NOT NULL,
      event_type text NOT NULL,
      webhook_url text NOT NULL,
      response_code integer NOT NULL,
      is_error boolean NOT NULL,
      request_body text NOT NULL,
      response_body text NOT NULL,
      date_created timestamptz NOT NULL
    )`,
    `CREATE INDEX app_request_log_by_app ON ${s}.app_request_log (app_id, date_created DESC, id DESC)`,
  ],
};
