import type { App, AppInstallation } from "../../db/schema.js";

/** The installations plugin's domain events (declaration merging); its index.ts imports this file. */
declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    "installation.created": { app: App; installation: AppInstallation };
    /** Emitted before the rows are deleted, in the same transaction, so subscribers can still read them. */
    "installation.deleted": { app: App; installation: AppInstallation };
    /**
     * The app asks the installation's organization for scopes it has not consented to: its owner
     * added them, or the installer did not hold them. `requestedScopes` are the newly pending ones,
     * `pendingScopes` all that wait for approval. The installation's tokens do not carry them.
     */
    "installation.scopes_requested": {
      app: App;
      installation: AppInstallation;
      requestedScopes: string[];
      pendingScopes: string[];
    };
    /** The organization approved pending scopes: `scopes` is what the installation's tokens carry from now on. */
    "installation.scopes_approved": {
      app: App;
      installation: AppInstallation;
      approvedScopes: string[];
      scopes: string[];
    };
  }
}
