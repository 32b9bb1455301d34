import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { ApiError } from "../../../http/errors.js";
import type { ProjectRef } from "../../event-store/index.js";
import type { EnvelopeItemHandler, EnvelopeItemInput } from "../../ingest/index.js";
import { settingsColumns } from "../monitors/repository.js";
import {
  type CheckInItem,
  checkInItem,
  type MonitorSettings,
  requireUsable,
  settingsFromEnvelope,
  slugify,
} from "../monitors/schemas.js";
import type { CronMonitor } from "../tables.js";
import type { CheckInRecorder } from "./record.js";

/** What became of a check-in: kept, or why it was dropped (the outcome's reason). */
export type IntakeResult = "recorded" | "finalized" | "unknown_monitor" | "invalid_config" | "other_project";

const DEFAULT_ENVIRONMENT = "production";

/**
 * Check-ins from SDKs (envelope `check_in` items) and from Sentry's HTTP check-in endpoint: the
 * monitor is created or updated from `monitor_config` when there is one (docs/crons.md, "Upsert"),
 * then the check-in is recorded, both in one transaction.
 */
export class CheckInIntake {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly recorder: CheckInRecorder,
  ) {}

  async accept(project: ProjectRef, item: CheckInItem, at: Date): Promise<IntakeResult> {
    let settings: MonitorSettings | null = null;
    if (item.monitor_config) {
      settings = settingsFromEnvelope(item.monitor_config);
      try {
        requireUsable(settings, "monitor_config.");
      } catch (error) {
        if (error instanceof ApiError) return "invalid_config";
        throw error;
      }
    }
    const slug = slugify(item.monitor_slug);
    if (!slug) return "unknown_monitor";
    return runInTransaction(this.db(), async (scope) => {
      const monitor = settings
        ? await upsertMonitor(scope.trx, project, slug, settings, at)
        : await findMonitor(scope.trx, project.organizationId, slug);
      if (!monitor) return "unknown_monitor";
      if (monitor.project_id !== project.id) return "other_project";
      return this.recorder.record(scope, monitor, {
        guid: item.check_in_id ? item.check_in_id.replaceAll("-", "").toLowerCase() : null,
        status: item.status,
        durationMs: item.duration == null ? null : item.duration * 1000,
        environment: item.environment ?? DEFAULT_ENVIRONMENT,
        at,
      });
    });
  }

  /** The ingest plugin's handler for `check_in` items (docs/ingest.md, "Other envelope items"). */
  envelopeHandler(): EnvelopeItemHandler {
    return {
      itemTypes: ["check_in"],
      accept: async (items, context) => {
        for (const item of items) {
          const parsed = parseItem(item);
          if (!parsed) {
            context.outcome("monitor", "invalid", "payload", 1);
            continue;
          }
          const result = await this.accept(context.project, parsed, context.receivedAt);
          if (result === "recorded") context.outcome("monitor", "accepted", "", 1);
          else context.outcome("monitor", "invalid", result, 1);
        }
      },
    };
  }
}

const utf8 = new TextDecoder();

function parseItem(item: EnvelopeItemInput): CheckInItem | null {
  try {
    const parsed = checkInItem.safeParse(JSON.parse(utf8.decode(item.payload)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function findMonitor(trx: Kysely<Database>, organizationId: number, slug: string) {
  return trx
    .selectFrom("cron_monitors")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("slug", "=", slug)
    .executeTakeFirst();
}

/** Creates the monitor, or updates its settings when it is this project's (another project's keeps its own). */
async function upsertMonitor(
  trx: Kysely<Database>,
  project: ProjectRef,
  slug: string,
  settings: MonitorSettings,
  now: Date,
): Promise<CronMonitor | undefined> {
  const columns = settingsColumns(settings);
  const upserted = await trx
    .insertInto("cron_monitors")
    .values({
      guid: randomUUID(),
      organization_id: project.organizationId,
      project_id: project.id,
      slug,
      name: slug,
      status: "active",
      date_created: now,
      ...columns,
    })
    .onConflict((oc) =>
      oc.columns(["organization_id", "slug"]).doUpdateSet(columns).where("cron_monitors.project_id", "=", project.id),
    )
    .returningAll()
    .executeTakeFirst();
  return upserted ?? findMonitor(trx, project.organizationId, slug);
}
