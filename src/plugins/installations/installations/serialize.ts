import { createHash } from "node:crypto";
import type { App, AppInstallation } from "../../../db/schema.js";
import { isoDate } from "../../../http/format.js";
import { grantedScopes, pendingScopes } from "../access/consent.js";
import type { InstallationListRow, InstalledSchemaRow, RequestLogRow } from "./repository.js";

/**
 * What an installation's tokens carry (`scopes`) and what its app asks for beyond the
 * organization's consent (`pendingScopes`, waiting for approval).
 */
function consent(appScopes: readonly string[], consented: readonly string[]) {
  return { scopes: grantedScopes(appScopes, consented), pendingScopes: pendingScopes(appScopes, consented) };
}

/** The seed's Installation shape, plus its consent. */
export function serializeInstallation(row: InstallationListRow) {
  return {
    app: { uuid: row.app_uuid, slug: row.app_slug, name: row.app_name },
    organization: { slug: row.organization_slug },
    uuid: row.uuid,
    status: row.status,
    ...consent(row.app_scopes, row.consented_scopes),
  };
}

/** An installation as its installer sees it: the list's shape plus the one-time grant `code` (null once used). */
export function serializeNewInstallation(app: App, installation: AppInstallation, organizationSlug: string) {
  return {
    app: { uuid: app.uuid, slug: app.slug, name: app.name },
    organization: { slug: organizationSlug },
    uuid: installation.uuid,
    status: installation.status,
    ...consent(app.scopes, installation.consented_scopes),
    code: installation.code,
  };
}

/** An app without its secret (every read but the creation and rotation responses). */
export function serializeApp(app: App) {
  return {
    uuid: app.uuid,
    slug: app.slug,
    name: app.name,
    status: app.is_internal ? "internal" : "published",
    webhookUrl: app.webhook_url,
    /** `disabled` after a 410 or five days of failures; changing `webhookUrl` turns it back on. */
    webhookStatus: app.webhook_status,
    /** Webhooks carry Sentry's `Sentry-Hook-*` header names beside the `Svc-Hook-*` ones. */
    sentryHookHeaders: app.sentry_hook_headers,
    events: app.events,
    scopes: app.scopes,
    isInternal: app.is_internal,
    schema: app.schema,
    clientId: app.client_id,
    dateCreated: isoDate(app.date_created),
    // Sentry's fields for features Faultline's apps do not have, with Sentry's values for an app without them.
    allowedOrigins: [],
    avatars: [],
    featureData: [],
    isAlertable: false,
    metadata: {},
    verifyInstall: false,
  };
}

/**
 * The UI components of installed apps: one per element of each app's schema. A component's
 * `uuid` is derived from the app and the element's position, so it is stable while the schema is.
 */
export function serializeComponents(rows: InstalledSchemaRow[], type?: string) {
  return rows.flatMap((row) =>
    ((row.schema?.elements as Array<{ type: string }> | undefined) ?? [])
      .map((element, index) => ({
        uuid: componentUuid(row.uuid, index),
        type: element.type,
        schema: element,
        app: { uuid: row.uuid, slug: row.slug, name: row.name },
      }))
      .filter((component) => type === undefined || component.type === type),
  );
}

function componentUuid(appUuid: string, index: number): string {
  const hex = createHash("sha256").update(`${appUuid}:component:${index}`).digest("hex");
  // Shaped as a version 5 (name-based) UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16] as string, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * One request of an app's webhook log (docs/webhooks.md, "Delivery"): never its secret or
 * signature headers.
 */
export function serializeRequest(row: RequestLogRow) {
  return {
    date: isoDate(row.date_created),
    responseCode: row.response_code,
    webhookUrl: row.webhook_url,
    eventType: row.event_type,
    organization: row.organization_slug === null ? null : { slug: row.organization_slug, name: row.organization_name },
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    requestBody: row.request_body,
    responseBody: row.response_body,
  };
}
