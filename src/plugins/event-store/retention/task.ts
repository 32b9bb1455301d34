import type { DependencyContainer } from "tsyringe";
import { Clock, Db, Options } from "../../../container/tokens.js";
import { notFound } from "../../../http/errors.js";
import { parseOrThrow } from "../../../http/validate.js";
import type { TaskDefinition } from "../../../worker/task.js";
import { z } from "zod";
import { OrganizationServiceToken } from "../../organizations/tokens.js";
import { IssueRetentionToken } from "../tokens.js";
import { maintainPartitions, type RetentionReport, type RetentionSettings, runRetention } from "./run.js";

export const RETENTION_TASK_ID = "issues.retention";

function settingsOf(container: DependencyContainer): RetentionSettings {
  const options = container.resolve(Options);
  return {
    schema: options.schema,
    issues: container.resolve(IssueRetentionToken),
    defaultDays: options.retention.days,
    now: container.resolve(Clock).now(),
  };
}

/** One slice of retention with this instance's schema, option and clock. */
const retentionSlice = (container: DependencyContainer) => runRetention(container.resolve(Db), settingsOf(container));

/**
 * Expires events, issues and counters past retention, and creates the coming weeks' partitions.
 * Hourly: expiry is by week, so an hour of lateness changes nothing. Instances take turns
 * through an advisory lock; the one that finds it taken does nothing.
 */
export const retentionTask: TaskDefinition = {
  id: RETENTION_TASK_ID,
  intervalMs: 3_600_000,
  run: async ({ container }) => (await retentionSlice(container)).more,
};

/** Keeps the coming weeks' partitions of `events` created (cheap when they exist: one catalog query). */
export const partitionTask: TaskDefinition = {
  id: "issues.partitions",
  intervalMs: 300_000,
  run: async ({ container }) => {
    await maintainPartitions(container.resolve(Db), settingsOf(container));
    return false;
  },
};

/** A whole retention run, slices added up (what `faultline retention run` prints). */
export async function runRetentionToEnd(container: DependencyContainer): Promise<RetentionReport> {
  const total: RetentionReport = {
    ran: false,
    partitionsCreated: [],
    partitionsDropped: [],
    eventsDeleted: 0,
    issuesExpired: 0,
    statsDeleted: 0,
    more: false,
  };
  for (;;) {
    const slice = await retentionSlice(container);
    if (!slice.ran) return total;
    total.ran = true;
    total.partitionsCreated.push(...slice.partitionsCreated);
    total.partitionsDropped.push(...slice.partitionsDropped);
    total.eventsDeleted += slice.eventsDeleted;
    total.issuesExpired += slice.issuesExpired;
    total.statsDeleted += slice.statsDeleted;
    if (!slice.more) return total;
  }
}

const projectDays = z.number().int().min(1).max(3650).nullable();

/** `faultline.api.retention`: run it now, and a project's own retention (null → the `retention.days` option). */
export function retentionApi(container: DependencyContainer) {
  return {
    run: () => runRetentionToEnd(container),
    setProjectDays: async (
      organization: string | number,
      project: string | number,
      days: number | null,
    ): Promise<void> => {
      const value = parseOrThrow(projectDays, days);
      const service = container.resolve(OrganizationServiceToken);
      const org = await service.requireOrganization(organization);
      const found = await service.requireProject(org.id, project);
      const updated = await container
        .resolve(Db)
        .updateTable("projects")
        .set({ retention_days: value })
        .where("id", "=", found.id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw notFound(`Unknown project ${JSON.stringify(project)}`);
    },
  };
}
