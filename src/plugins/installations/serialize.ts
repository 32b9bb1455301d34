import type { App } from "../../db/schema.js";
import { isoDate } from "../../http/format.js";
import type { InstallationListRow } from "./repository.js";

/** The seed's Installation shape. */
export function serializeInstallation(row: InstallationListRow) {
  return {
    app: { uuid: row.app_uuid, slug: row.app_slug, name: row.app_name },
    organization: { slug: row.organization_slug },
    uuid: row.uuid,
    status: row.status,
  };
}

/** An app without its secret (every read but the creation response). */
export function serializeApp(app: App) {
  return {
    uuid: app.uuid,
    slug: app.slug,
    name: app.name,
    status: app.is_internal ? "internal" : "published",
    webhookUrl: app.webhook_url,
    events: app.events,
    scopes: app.scopes,
    isInternal: app.is_internal,
    schema: app.schema,
    clientId: app.client_id,
    dateCreated: isoDate(app.date_created),
  };
}
