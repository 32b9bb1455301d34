import type { Kysely, Updateable } from "kysely";
import type { Scope } from "../../auth/scopes.js";
import type { Clock } from "../../clock.js";
import { randomBase62, randomHex, randomUUID } from "../../crypto/secrets.js";
import { isUniqueViolation } from "../../db/errors.js";
import type { App, AppInstallation, AppsTable, Database } from "../../db/schema.js";
import { runInTransaction } from "../../db/transaction.js";
import { checkDestination } from "../../delivery/ssrf.js";
import { type Actor, type EventBus, SYSTEM_ACTOR } from "../../events/event-bus.js";
import { ApiError, fieldErrors, notFound } from "../../http/errors.js";
import { slugify } from "../../http/format.js";
import { parseOrThrow } from "../../http/validate.js";
import type { OrganizationService } from "../organizations/index.js";
import { cancelPendingDeliveries, resetDestinationHealth, retargetPendingDeliveries } from "./pending-deliveries.js";
import type { InstallationRepository } from "./repository.js";
import { type CreateAppInput, createAppInput, type InstallAppInput, installAppInput, type UpdateAppInput, updateAppInput } from "./schemas.js";
import { serializeApp, serializeNewInstallation } from "./serialize.js";

declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    "installation.created": { app: App; installation: AppInstallation };
    /** Emitted before the rows are deleted, in the same transaction, so subscribers can still read them. */
    "installation.deleted": { app: App; installation: AppInstallation };
  }
}

export interface AppChangeOptions {
  actor?: Actor;
  /**
   * An API caller (HTTP), with its scopes in the owning organization: the app's scopes may not
   * exceed them, and its webhook URL must pass the SSRF policy. In-process calls come from the
   * host itself, which is trusted with its own configuration, and pass nothing.
   */
  caller?: { scopes: ReadonlySet<Scope> };
}

/** Apps (OAuth applications owned by an organization) and their installations. */
export class InstallationService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: InstallationRepository,
    private readonly organizations: OrganizationService,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly allowPrivateNetworks: boolean,
  ) {}

  /** Creates an app; the client secret is in this result only. An internal app is installed in its owner at once. */
  async createApp(input: CreateAppInput, options: AppChangeOptions = {}) {
    const values = parseOrThrow(createAppInput, input);
    await this.checkCaller(options.caller, values);
    const owner = await this.organizations.requireOrganization(values.organization);
    const slug = values.slug ?? `${slugify(values.name)}-${randomHex(3)}`;
    let app: App;
    try {
      app = await this.repository.insertApp({
        uuid: randomUUID(),
        organization_id: owner.id,
        slug,
        name: values.name,
        is_internal: values.isInternal,
        webhook_url: values.webhookUrl,
        events: values.events,
        scopes: values.scopes,
        schema: JSON.stringify(values.schema),
        client_id: randomHex(32),
        client_secret: newClientSecret(),
        date_created: this.clock.now(),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, `App slug "${slug}" is already taken`, { errors: { slug: ["This slug is already taken"] } });
      throw error;
    }
    const installed = values.isInternal ? await this.installApp(owner.id, owner.slug, app, options.actor) : null;
    return { ...serializeApp(app), clientSecret: app.client_secret, installation: installed ? publicInstallation(installed) : null };
  }

  /** An app by slug (in-process API), else 404. */
  async requireApp(slug: string): Promise<App> {
    const app = typeof slug === "string" ? await this.repository.findAppBySlug(slug) : undefined;
    if (!app) throw notFound(`Unknown app ${JSON.stringify(slug)}`);
    return app;
  }

  /** Changes name, webhook URL, categories, scopes or UI schema. Installation tokens follow the new scopes. */
  async updateApp(app: App, input: UpdateAppInput, options: AppChangeOptions = {}) {
    const values = parseOrThrow(updateAppInput, input ?? {});
    await this.checkCaller(options.caller, values);
    const changes: Updateable<AppsTable> = {
      ...(values.name !== undefined && { name: values.name }),
      ...(values.events !== undefined && { events: values.events }),
      ...(values.scopes !== undefined && { scopes: values.scopes }),
      ...(values.schema !== undefined && { schema: JSON.stringify(values.schema) }),
      // A new address is how an owner answers a disabled webhook (410, or days of failures).
      ...(values.webhookUrl !== undefined && { webhook_url: values.webhookUrl, webhook_status: "active" as const }),
    };
    if (Object.keys(changes).length === 0) return serializeApp(app);
    return runInTransaction(this.db(), async ({ trx }) => {
      const updated = await this.repository.updateApp(app.id, changes, trx);
      if (values.scopes !== undefined) await this.repository.rescopeTokens(app.id, values.scopes, trx);
      if (values.webhookUrl !== undefined) {
        await resetDestinationHealth(trx, app.id);
        if (values.webhookUrl === null) await cancelPendingDeliveries(trx, this.clock.now(), { appId: app.id }, { uninstallNoticesToo: true });
        else await retargetPendingDeliveries(trx, app.id, { url: values.webhookUrl });
      }
      return serializeApp(updated);
    });
  }

  /** A new client secret, in this result only; queued deliveries are signed with it from now on. */
  async rotateSecret(app: App) {
    const secret = newClientSecret();
    return runInTransaction(this.db(), async ({ trx }) => {
      const updated = await this.repository.updateApp(app.id, { client_secret: secret }, trx);
      await retargetPendingDeliveries(trx, app.id, { secret });
      return { ...serializeApp(updated), clientSecret: secret };
    });
  }

  /** Deletes an app and uninstalls it everywhere: `installation.deleted` for each installation. */
  async deleteApp(app: App, actor: Actor = SYSTEM_ACTOR): Promise<void> {
    await runInTransaction(this.db(), async (scope) => {
      // Locked first: an install racing with the deletion waits, then finds no app, so no
      // installation can appear after the list below and vanish without installation.deleted.
      const locked = await this.repository.findAppById(app.id, scope.trx, { lock: true });
      if (!locked) throw notFound();
      const installations = await this.repository.installationsOfApp(locked.id, scope.trx);
      const now = this.clock.now();
      await cancelPendingDeliveries(scope.trx, now, { appId: locked.id });
      for (const installation of installations) {
        await this.events.emit(scope, { name: "installation.deleted", organizationId: installation.organization_id, actor, occurredAt: now, payload: { app: locked, installation } });
      }
      await this.repository.deleteApp(locked.id, scope.trx);
    });
  }

  /** Installs a public app (or an internal one in its owner) by slug; installing twice returns the existing one. */
  async install(input: InstallAppInput, actor: Actor = SYSTEM_ACTOR) {
    const values = parseOrThrow(installAppInput, input);
    const organization = await this.organizations.requireOrganization(values.organization);
    const app = await this.repository.findAppBySlug(values.app);
    if (!app || (app.is_internal && app.organization_id !== organization.id)) throw notFound(`Unknown app "${values.app}"`);
    const installed = await this.installApp(organization.id, organization.slug, app, actor);
    return { ...publicInstallation(installed), created: installed.created };
  }

  /** Uninstalls: `installation.deleted` is emitted first, so its webhook is still delivered to the app. */
  async uninstall(uuid: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
    await runInTransaction(this.db(), async (scope) => {
      // Locked, so that of two concurrent uninstalls one wins and the other finds nothing.
      const installation = await this.repository.findInstallation(uuid, scope.trx, { lock: true });
      if (!installation) throw notFound();
      const app = await this.repository.findAppById(installation.app_id, scope.trx);
      if (!app) throw notFound();
      const now = this.clock.now();
      await cancelPendingDeliveries(scope.trx, now, { installationUuid: installation.uuid });
      await this.events.emit(scope, { name: "installation.deleted", organizationId: installation.organization_id, actor, occurredAt: now, payload: { app, installation } });
      await this.repository.deleteInstallation(installation.id, scope.trx);
    });
  }

  private async installApp(organizationId: number, organizationSlug: string, app: App, actor: Actor = SYSTEM_ACTOR) {
    const now = this.clock.now();
    return runInTransaction(this.db(), async (scope) => {
      const { installation, created } = await this.repository
        .install(organizationId, app.id, { uuid: randomUUID(), code: randomBase62(32), now }, scope.trx)
        .catch((error: unknown) => {
          // foreign_key_violation: the app was deleted while this install waited for it.
          if ((error as { code?: unknown }).code === "23503") throw notFound(`Unknown app "${app.slug}"`);
          throw error;
        });
      if (created) {
        await this.events.emit(scope, { name: "installation.created", organizationId, actor, occurredAt: now, payload: { app, installation } });
      }
      return { app, installation, organizationSlug, created };
    });
  }

  /** What an API caller asks for: scopes it holds itself, and a webhook URL the SSRF policy accepts. */
  private async checkCaller(caller: AppChangeOptions["caller"], values: { scopes?: readonly string[]; webhookUrl?: string | null }): Promise<void> {
    if (!caller) return;
    const exceeding = (values.scopes ?? []).filter((scope) => !caller.scopes.has(scope as Scope));
    if (exceeding.length > 0) throw fieldErrors({ scopes: [`Requested scopes exceed yours: ${exceeding.join(", ")}`] });
    if (values.webhookUrl === null || values.webhookUrl === undefined) return;
    const problem = await checkDestination(values.webhookUrl, { allowPrivateNetworks: this.allowPrivateNetworks });
    if (problem) throw fieldErrors({ webhookUrl: [`URL ${problem}`] });
  }
}

/** 64 hex characters: valid base64 of a length divisible by 4, as Standard Webhooks keys must be (platform.md §5.2). */
function newClientSecret(): string {
  return randomHex(32);
}

function publicInstallation(installed: { app: App; installation: AppInstallation; organizationSlug: string }) {
  return serializeNewInstallation(installed.app, installed.installation, installed.organizationSlug);
}
