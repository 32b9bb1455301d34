import type { SchemaMigration } from "./types.js";

/**
 * What each organization consented to for an installed app. An installation's tokens never carry
 * more than this set, whatever scopes the app's owner adds later; scopes the app gains wait for
 * the installing organization's approval (docs/authentication.md, "Installation tokens and consent").
 */
export const installationConsentMigration: SchemaMigration = {
  name: "0007_installation_consent",
  statements: (s) => [
    // The default consents to nothing: a row written without a decision fails closed.
    `ALTER TABLE ${s}.app_installations ADD COLUMN consented_scopes text[] NOT NULL DEFAULT '{}'`,
    // Existing installations keep exactly what their tokens carry today: the app's current scopes.
    `UPDATE ${s}.app_installations AS i SET consented_scopes = a.scopes FROM ${s}.apps AS a WHERE a.id = i.app_id`,
  ],
};
