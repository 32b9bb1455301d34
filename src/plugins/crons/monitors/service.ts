import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { fieldErrors, notFound } from "../../../http/errors.js";
import type { CronMonitor } from "../tables.js";
import { type MonitorRepository, settingsColumns, settingsOf } from "./repository.js";
import { type CreateMonitorBody, requireUsable, settingsFromApi, slugify, type UpdateMonitorBody } from "./schemas.js";

const SLUG_TAKEN = "This monitor slug is already in use in this organization";

/** Sentry's monitor API: create, change and delete an organization's monitors, each in one transaction. */
export class MonitorService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly monitors: MonitorRepository,
    private readonly clock: Clock,
  ) {}

  async require(organizationId: number, slug: string): Promise<CronMonitor> {
    const monitor = await this.monitors.find(organizationId, slug);
    if (!monitor) throw notFound("The requested resource does not exist");
    return monitor;
  }

  async create(organizationId: number, body: CreateMonitorBody): Promise<CronMonitor> {
    const settings = settingsFromApi(body.config);
    requireUsable(settings, "config.");
    const slug = body.slug ?? slugify(body.name);
    if (!slug) throw fieldErrors({ slug: ["a slug is needed: the name has no letters or digits"] });
    return runInTransaction(this.db(), async ({ trx }) => {
      const projectId = await requireProject(trx, organizationId, body.project);
      if (await this.monitors.find(organizationId, slug, trx)) throw fieldErrors({ slug: [SLUG_TAKEN] });
      return trx
        .insertInto("cron_monitors")
        .values({
          guid: randomUUID(),
          organization_id: organizationId,
          project_id: projectId,
          slug,
          name: body.name,
          status: body.status ?? "active",
          date_created: this.clock.now(),
          ...settingsColumns(settings),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  async update(organizationId: number, slug: string, body: UpdateMonitorBody): Promise<CronMonitor> {
    return runInTransaction(this.db(), async ({ trx }) => {
      const monitor = await this.monitors.find(organizationId, slug, trx, true);
      if (!monitor) throw notFound("The requested resource does not exist");
      const settings = settingsFromApi(body.config ?? {}, settingsOf(monitor));
      requireUsable(settings, "config.");
      if (
        body.slug !== undefined &&
        body.slug !== monitor.slug &&
        (await this.monitors.find(organizationId, body.slug, trx))
      )
        throw fieldErrors({ slug: [SLUG_TAKEN] });
      const projectId =
        body.project === undefined ? monitor.project_id : await requireProject(trx, organizationId, body.project);
      return trx
        .updateTable("cron_monitors")
        .set({
          ...settingsColumns(settings),
          ...(body.name !== undefined && { name: body.name }),
          ...(body.slug !== undefined && { slug: body.slug }),
          ...(body.status !== undefined && { status: body.status }),
          project_id: projectId,
        })
        .where("id", "=", monitor.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  async delete(organizationId: number, slug: string): Promise<void> {
    const monitor = await this.require(organizationId, slug);
    await this.db()
      .deleteFrom("cron_monitors")
      .where("organization_id", "=", organizationId)
      .where("id", "=", monitor.id)
      .execute();
  }
}

/** The organization's project by slug or id; a 400 naming `project` otherwise. */
async function requireProject(trx: Kysely<Database>, organizationId: number, ref: string | number): Promise<number> {
  const text = String(ref);
  let query = trx.selectFrom("projects").select("id").where("organization_id", "=", organizationId);
  query = /^\d+$/.test(text)
    ? query.where((eb) => eb.or([eb("id", "=", Number(text)), eb("slug", "=", text)]))
    : query.where("slug", "=", text);
  const project = await query.executeTakeFirst();
  if (!project) throw fieldErrors({ project: [`no project "${text}" in this organization`] });
  return project.id;
}
