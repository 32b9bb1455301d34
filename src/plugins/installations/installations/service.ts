import type { Kysely, Updateable } from "kysely";
import type { Scope } from "../../../auth/scopes.js";
import type { TokenCache } from "../../../auth/token-cache.js";
import type { Clock } from "../../../clock.js";
import { randomBase62, randomHex, randomUUID } from "../../../crypto/secrets.js";
import { isUniqueViolation } from "../../../db/errors.js";
import type { App, AppInstallation, AppsTable, Database } from "../../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import { checkDestination } from "../../../delivery/ssrf.js";
import { type Actor, type EventBus, SYSTEM_ACTOR } from "../../../events/event-bus.js";
import { ApiError, fieldErrors, notFound } from "../../../http/errors.js";
import { slugify } from "../../../http/format.js";
import { parseOrThrow } from "../../../http/validate.js";
import type { OrganizationService } from "../../organizations/index.js";
import {
  cancelPendingDeliveries,
  resetDestinationHealth,
  retargetPendingDeliveries,
} from "../deliveries/pending-deliveries.js";
import { consentAfterAppChange, grantedScopes, pendingScopes, sameScopes, scopesBeyond } from "../access/consent.js";
import type { InstallationRepository } from "./repository.js";
import {
  type ApproveScopesInput,
  approveScopesInput,
  type CreateAppInput,
  createAppInput,
  type InstallAppInput,
  installAppInput,
  type UpdateAppInput,
  updateAppInput,
} from "./schemas.js";
import { serializeApp, serializeInstallation, serializeNewInstallation } from "./serialize.js";

export interface AppChangeOptions {
  actor?: Actor;
  /**
   * An API caller (HTTP), with its scopes in the owning organization: the app's scopes may not
   * exceed them, and its webhook URL must pass the SSRF policy. In-process calls come from the
   * host itself, which is trusted with its own configuration, and pass nothing.
   */
  caller?: { scopes: ReadonlySet<Scope> };
}

export interface ConsentOptions {
  actor?: Actor;
  /**
   * An API caller (HTTP) with its scopes in the installation's organization: it consents only to
   * scopes it holds itself. The in-process API (the trusted host) passes nothing.
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
    private readonly tokenCache: TokenCache,
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
        sentry_hook_headers: values.sentryHookHeaders,
        events: values.events,
        scopes: values.scopes,
        schema: JSON.stringify(values.schema),
        client_id: randomHex(32),
        client_secret: newClientSecret(),
        date_created: this.clock.now(),
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ApiError(409, `App slug "${slug}" is already taken`, {
          errors: { slug: ["This slug is already taken"] },
        });
      throw error;
    }
    // The caller holds every scope of the app (checkCaller), or is the trusted host: full consent.
    const installed = values.isInternal
      ? await this.installApp(owner.id, owner.slug, app, (appScopes) => appScopes, options.actor)
      : null;
    return {
      ...serializeApp(app),
      clientSecret: app.client_secret,
      installation: installed ? publicInstallation(installed) : null,
    };
  }

  /** An app by slug (in-process API), else 404. */
  async requireApp(slug: string): Promise<App> {
    const app = typeof slug === "string" ? await this.repository.findAppBySlug(slug) : undefined;
    if (!app) throw notFound(`Unknown app ${JSON.stringify(slug)}`);
    return app;
  }

  /**
   * Changes name, webhook URL, categories, scopes or UI schema. Installations follow a narrowing at
   * once; added scopes wait for each installing organization's approval (its owner's own
   * installation consents implicitly).
   */
  async updateApp(app: App, input: UpdateAppInput, options: AppChangeOptions = {}) {
    const values = parseOrThrow(updateAppInput, input ?? {});
    await this.checkCaller(options.caller, values);
    const changes: Updateable<AppsTable> = {
      ...(values.name !== undefined && { name: values.name }),
      ...(values.events !== undefined && { events: values.events }),
      ...(values.scopes !== undefined && { scopes: values.scopes }),
      ...(values.schema !== undefined && { schema: JSON.stringify(values.schema) }),
      ...(values.sentryHookHeaders !== undefined && { sentry_hook_headers: values.sentryHookHeaders }),
      // A new address is how an owner answers a disabled webhook (410, or days of failures).
      ...(values.webhookUrl !== undefined && { webhook_url: values.webhookUrl, webhook_status: "active" as const }),
    };
    if (Object.keys(changes).length === 0) return serializeApp(app);
    return runInTransaction(this.db(), async (scope) => {
      // Locked: the scopes it had are what "newly requested" is measured against, and an approval
      // (which locks the app first too) waits rather than consenting against stale scopes.
      const before = await this.repository.findAppById(app.id, scope.trx, { lock: true });
      if (!before) throw notFound();
      const updated = await this.repository.updateApp(app.id, changes, scope.trx);
      if (values.scopes !== undefined)
        await this.followScopeChange(scope, before, updated, options.actor ?? SYSTEM_ACTOR);
      if (values.webhookUrl !== undefined) {
        // The deliveries' rows before the destination's, the order a sending worker locks them in
        // (its delivery, then the destination's health): the other order deadlocked with a send.
        if (values.webhookUrl === null)
          await cancelPendingDeliveries(scope.trx, this.clock.now(), { appId: app.id }, { uninstallNoticesToo: true });
        else await retargetPendingDeliveries(scope.trx, app.id, { url: values.webhookUrl });
        await resetDestinationHealth(scope.trx, app.id);
      }
      return serializeApp(updated);
    });
  }

  /**
   * Re-derives every installation's consent from the app's new scopes, re-scopes their tokens to
   * it, and tells each organization asked for something new (`installation.scopes_requested`).
   */
  private async followScopeChange(scope: TransactionScope, before: App, updated: App, actor: Actor): Promise<void> {
    const installations = await this.repository.installationsOfApp(updated.id, scope.trx);
    const now = this.clock.now();
    const requests: Array<{ installation: AppInstallation; requestedScopes: string[]; pendingScopes: string[] }> = [];
    // Installations sharing a consent are updated together: a public app's installations mostly do.
    const changed = new Map<string, { consentedScopes: string[]; ids: number[] }>();
    for (const installation of installations) {
      const isOwner = installation.organization_id === updated.organization_id;
      const consentedScopes = consentAfterAppChange(updated.scopes, installation.consented_scopes, isOwner);
      if (!sameScopes(consentedScopes, installation.consented_scopes)) {
        const key = JSON.stringify(consentedScopes);
        const group = changed.get(key) ?? { consentedScopes, ids: [] };
        group.ids.push(installation.id);
        changed.set(key, group);
      }
      const pendingBefore = new Set(pendingScopes(before.scopes, installation.consented_scopes));
      const pendingNow = pendingScopes(updated.scopes, consentedScopes);
      const requestedScopes = pendingNow.filter((pending) => !pendingBefore.has(pending));
      if (requestedScopes.length > 0) {
        requests.push({
          installation: { ...installation, consented_scopes: consentedScopes },
          requestedScopes,
          pendingScopes: pendingNow,
        });
      }
    }
    for (const { consentedScopes, ids } of changed.values())
      await this.repository.setConsent(ids, consentedScopes, scope.trx);
    await this.repository.syncTokenScopes({ appId: updated.id }, scope.trx);
    scope.afterCommit(() => this.tokenCache.invalidate());
    for (const request of requests) {
      await this.events.emit(scope, {
        name: "installation.scopes_requested",
        organizationId: request.installation.organization_id,
        actor,
        occurredAt: now,
        payload: { app: updated, ...request },
      });
    }
  }

  /**
   * The organization approves pending scopes of an installation: its tokens (existing and future)
   * carry them from now on. Each must be one the app asks for; an API caller must hold each itself.
   */
  async approveScopes(uuid: string, input: ApproveScopesInput, options: ConsentOptions = {}) {
    const { scopes: approving } = parseOrThrow(approveScopesInput, input ?? {});
    return runInTransaction(this.db(), async (scope) => {
      const found = await this.repository.findInstallation(uuid, scope.trx);
      // The app first, then the installation: the order updateApp locks them in.
      const app = found && (await this.repository.findAppById(found.app_id, scope.trx, { lock: true }));
      const installation = app && (await this.repository.findInstallation(uuid, scope.trx, { lock: true }));
      if (!app || !installation) throw notFound();
      const notAsked = approving.filter((requested) => !app.scopes.includes(requested));
      if (notAsked.length > 0) throw fieldErrors({ scopes: [`The app does not ask for: ${notAsked.join(", ")}`] });
      const beyond = options.caller ? scopesBeyond(approving, options.caller.scopes) : [];
      if (beyond.length > 0) throw fieldErrors({ scopes: [`Approved scopes exceed yours: ${beyond.join(", ")}`] });

      const consentedScopes = grantedScopes(app.scopes, [...installation.consented_scopes, ...approving]);
      const wasPending = pendingScopes(app.scopes, installation.consented_scopes);
      const approvedScopes = wasPending.filter((pending) => consentedScopes.includes(pending));
      if (approvedScopes.length > 0) {
        await this.repository.setConsent([installation.id], consentedScopes, scope.trx);
        await this.repository.syncTokenScopes({ installationId: installation.id }, scope.trx);
        scope.afterCommit(() => this.tokenCache.invalidate());
        await this.events.emit(scope, {
          name: "installation.scopes_approved",
          organizationId: installation.organization_id,
          actor: options.actor ?? SYSTEM_ACTOR,
          occurredAt: this.clock.now(),
          payload: {
            app,
            installation: { ...installation, consented_scopes: consentedScopes },
            approvedScopes,
            scopes: consentedScopes,
          },
        });
      }
      return serializeInstallation(await this.repository.installationRow(installation.id, scope.trx));
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
        await this.events.emit(scope, {
          name: "installation.deleted",
          organizationId: installation.organization_id,
          actor,
          occurredAt: now,
          payload: { app: locked, installation },
        });
      }
      await this.repository.deleteApp(locked.id, scope.trx);
      // Its installations' tokens went with it (ON DELETE CASCADE).
      scope.afterCommit(() => this.tokenCache.invalidate());
    });
  }

  /**
   * Installs a public app (or an internal one in its owner) by slug; installing twice returns the
   * existing one. The organization consents to the app's scopes, or over HTTP to those of them the
   * installer holds: the rest are pending (`installation.scopes_requested`).
   */
  async install(input: InstallAppInput, options: ConsentOptions = {}) {
    const values = parseOrThrow(installAppInput, input);
    const organization = await this.organizations.requireOrganization(values.organization);
    const app = await this.repository.findAppBySlug(values.app);
    if (!app || (app.is_internal && app.organization_id !== organization.id))
      throw notFound(`Unknown app "${values.app}"`);
    const caller = options.caller;
    const consentTo = caller
      ? (appScopes: string[]) => grantedScopes(appScopes, [...caller.scopes])
      : (appScopes: string[]) => appScopes;
    const installed = await this.installApp(organization.id, organization.slug, app, consentTo, options.actor);
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
      await this.events.emit(scope, {
        name: "installation.deleted",
        organizationId: installation.organization_id,
        actor,
        occurredAt: now,
        payload: { app, installation },
      });
      await this.repository.deleteInstallation(installation.id, scope.trx);
      // Its tokens went with it (ON DELETE CASCADE).
      scope.afterCommit(() => this.tokenCache.invalidate());
    });
  }

  /** `consentTo` picks, from the app's scopes as they are when the row is written, what the organization consents to. */
  private async installApp(
    organizationId: number,
    organizationSlug: string,
    requested: App,
    consentTo: (appScopes: string[]) => string[],
    actor: Actor = SYSTEM_ACTOR,
  ) {
    const now = this.clock.now();
    return runInTransaction(this.db(), async (scope) => {
      // Read again under a share lock: a change of the app's scopes either committed before (and
      // the consent is taken from it) or waits, then re-derives this installation's consent too.
      const app = await this.repository.findAppById(requested.id, scope.trx, { lock: "share" });
      if (!app) throw notFound(`Unknown app "${requested.slug}"`);
      const { installation, created } = await this.repository.install(
        organizationId,
        app.id,
        { uuid: randomUUID(), code: randomBase62(32), consentedScopes: consentTo(app.scopes), now },
        scope.trx,
      );
      if (created) {
        await this.events.emit(scope, {
          name: "installation.created",
          organizationId,
          actor,
          occurredAt: now,
          payload: { app, installation },
        });
        const pending = pendingScopes(app.scopes, installation.consented_scopes);
        if (pending.length > 0) {
          const payload = { app, installation, requestedScopes: pending, pendingScopes: pending };
          await this.events.emit(scope, {
            name: "installation.scopes_requested",
            organizationId,
            actor,
            occurredAt: now,
            payload,
          });
        }
      }
      return { app, installation, organizationSlug, created };
    });
  }

  /** What an API caller asks for: scopes it holds itself, and a webhook URL the SSRF policy accepts. */
  private async checkCaller(
    caller: AppChangeOptions["caller"],
    values: { scopes?: readonly string[]; webhookUrl?: string | null },
  ): Promise<void> {
    if (!caller) return;
    const exceeding = (values.scopes ?? []).filter((scope) => !caller.scopes.has(scope as Scope));
    if (exceeding.length > 0) throw fieldErrors({ scopes: [`Requested scopes exceed yours: ${exceeding.join(", ")}`] });
    if (values.webhookUrl === null || values.webhookUrl === undefined) return;
    const problem = await checkDestination(values.webhookUrl, { allowPrivateNetworks: this.allowPrivateNetworks });
    if (problem) throw fieldErrors({ webhookUrl: [`URL ${problem}`] });
  }
}

/**
 * 64 hex characters: valid base64 of a length divisible by 4, as Standard Webhooks keys must be
 * (docs/webhooks.md, "Headers and signatures").
 */
function newClientSecret(): string {
  return randomHex(32);
}

function publicInstallation(installed: { app: App; installation: AppInstallation; organizationSlug: string }) {
  return serializeNewInstallation(installed.app, installed.installation, installed.organizationSlug);
}
