import type { Kysely } from "kysely";
import type { Clock } from "../../clock.js";
import { randomBase62, randomHex, randomUUID } from "../../crypto/secrets.js";
import { isUniqueViolation } from "../../db/errors.js";
import type { App, AppInstallation, Database } from "../../db/schema.js";
import { runInTransaction } from "../../db/transaction.js";
import { type Actor, type EventBus, SYSTEM_ACTOR } from "../../events/event-bus.js";
import { ApiError, notFound } from "../../http/errors.js";
import { slugify } from "../../http/format.js";
import { parseOrThrow } from "../../http/validate.js";
import type { OrganizationService } from "../organizations/index.js";
import type { InstallationRepository } from "./repository.js";
import { type CreateAppInput, createAppInput, type InstallAppInput, installAppInput } from "./schemas.js";
import { serializeApp } from "./serialize.js";

declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    "installation.created": { app: App; installation: AppInstallation };
  }
}

/** Apps (OAuth applications owned by an organization) and their installations. */
export class InstallationService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: InstallationRepository,
    private readonly organizations: OrganizationService,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Creates an app; the client secret is in this result only. An internal app is installed in its owner at once. */
  async createApp(input: CreateAppInput) {
    const values = parseOrThrow(createAppInput, input);
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
        client_secret: randomHex(32),
        date_created: this.clock.now(),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, `App slug "${slug}" is already taken`);
      throw error;
    }
    const installation = values.isInternal ? await this.installApp(owner.id, app) : null;
    return { ...serializeApp(app), clientSecret: app.client_secret, installation };
  }

  /** Installs a public app (or an internal one in its owner) by slug; installing twice returns the existing one. */
  async install(input: InstallAppInput, actor: Actor = SYSTEM_ACTOR) {
    const values = parseOrThrow(installAppInput, input);
    const organization = await this.organizations.requireOrganization(values.organization);
    const app = await this.repository.findAppBySlug(values.app);
    if (!app || (app.is_internal && app.organization_id !== organization.id)) throw notFound(`Unknown app "${values.app}"`);
    return this.installApp(organization.id, app, actor);
  }

  private async installApp(organizationId: number, app: App, actor: Actor = SYSTEM_ACTOR) {
    const now = this.clock.now();
    return runInTransaction(this.db(), async (scope) => {
      const { installation, created } = await this.repository.install(
        organizationId,
        app.id,
        { uuid: randomUUID(), code: randomBase62(32), now },
        scope.trx,
      );
      if (created) {
        await this.events.emit(scope, { name: "installation.created", organizationId, actor, occurredAt: now, payload: { app, installation } });
      }
      return { uuid: installation.uuid, status: installation.status, app: { uuid: app.uuid, slug: app.slug, name: app.name }, code: installation.code, created };
    });
  }
}
