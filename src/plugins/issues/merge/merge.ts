import type { Transaction } from "kysely";
import type { ResolvedActor } from "../../../auth/actor.js";
import type { Database } from "../../../db/schema.js";
import { badRequest } from "../../../http/errors.js";
import type { ProjectSnapshot } from "../domain-events.js";
import { formatShortId } from "../short-id.js";
import type { Issue } from "../tables.js";

/** What a merge answers (Sentry's `{"merge": {"parent", "children"}}`): ids as strings. */
export interface MergeResult {
  parent: string;
  children: string[];
}

/**
 * The parent of a merge: the issue with the most events, the oldest (lowest id) on a tie, as
 * Sentry picks it. Refuses fewer than two issues and issues of different projects, since
 * fingerprints, short ids and releases are per project.
 */
export function chooseParent(rows: readonly Issue[]): { parent: Issue; children: Issue[] } {
  if (rows.length < 2)
    throw badRequest(
      `Merging needs at least two issues: ${rows.length === 0 ? "none" : "only one"} of the given issues matched`,
      { id: ["give at least two ids of live issues of this organization"] },
    );
  const projects = new Set(rows.map((row) => row.project_id));
  if (projects.size > 1)
    throw badRequest(
      `Merging across multiple projects is not supported: the issues belong to ${projects.size} projects`,
      { id: ["give issues of one project"] },
    );
  const [parent, ...children] = [...rows].sort(
    (a, b) => Number(b.times_seen) - Number(a.times_seen) || Number(a.id) - Number(b.id),
  ) as [Issue, ...Issue[]];
  return { parent, children: children.sort((a, b) => Number(a.id) - Number(b.id)) };
}

export function loadProject(trx: Transaction<Database>, projectId: number): Promise<ProjectSnapshot> {
  return trx
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform"])
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
}

/** Sentry's `merge` activity on the parent: `{issues: [{id, shortId}]}`, one per child. */
export async function recordMergeActivity(
  trx: Transaction<Database>,
  parent: Issue,
  children: readonly Issue[],
  project: ProjectSnapshot,
  actor: ResolvedActor,
  now: Date,
): Promise<void> {
  await trx
    .insertInto("issue_activity")
    .values({
      organization_id: parent.organization_id,
      issue_id: Number(parent.id),
      type: "merge",
      data: JSON.stringify({
        issues: children.map((child) => ({
          id: String(child.id),
          shortId: formatShortId(project.slug, child.short_number),
        })),
      }),
      user_id: actor.userId,
      date_created: now,
    })
    .execute();
}
