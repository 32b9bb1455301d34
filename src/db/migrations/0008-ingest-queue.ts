import type { SchemaMigration } from "./types.js";

/**
 * The ingest queue (#14): accepted, normalised events waiting for the digest stage to group and
 * store them. A row is written by the accept path's group commit and deleted in the digest's
 * transaction that stored its event, so an acknowledged event is either here or in `events`.
 * No foreign keys: each would cost a lookup per accepted row on the hot path.
 */
export const ingestQueueMigration: SchemaMigration = {
  name: "0008_ingest_queue",
  statements: (s) => [
    `CREATE TABLE ${s}.ingest_queue (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id integer NOT NULL,
      organization_id integer NOT NULL,
      platform text,
      event text NOT NULL,
      attempts integer NOT NULL DEFAULT 0
    )`,
  ],
};
