import type { SchemaMigration } from "./types.js";

/**
 * Destination types are registered by plugins (`DestinationRegistry`), the notification channels
 * and a host's own among them: the database no longer lists them. The engine refuses a type no
 * plugin registered, so a row of an unknown type is never sent.
 */
export const deliveryDestinationTypesMigration: SchemaMigration = {
  name: "0017_delivery_destination_types",
  statements: (s) => [`ALTER TABLE ${s}.deliveries DROP CONSTRAINT IF EXISTS deliveries_destination_type_check`],
};
