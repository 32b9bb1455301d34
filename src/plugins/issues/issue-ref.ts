import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { parseShortId } from "./short-id.js";

const MAX_BIGINT_DIGITS = 15;

/** What a URL's `{issue_id}` names: a numeric id or a short id (`WEB-1A`). */
export type IssueRef = { kind: "id"; id: number } | { kind: "short"; projectSlug: string; shortNumber: number };

/** The reference `ref` spells, or undefined when it can name no issue. */
export function parseIssueRef(ref: string): IssueRef | undefined {
  if (/^\d+$/.test(ref)) return ref.length > MAX_BIGINT_DIGITS ? undefined : { kind: "id", id: Number(ref) };
  const short = parseShortId(ref);
  return short ? { kind: "short", ...short } : undefined;
}

/**
 * The live issue of one organization a reference names. Branches on `ref.kind` only, so a
 * prepared statement (db/prepared.ts) may pass stand-ins for the values.
 */
export function issueByRef(db: Kysely<Database>, organizationId: number, ref: IssueRef) {
  const query = db
    .selectFrom("issues")
    .selectAll("issues")
    .where("issues.organization_id", "=", organizationId)
    .where("issues.deleted_at", "is", null);
  if (ref.kind === "id") return query.where("issues.id", "=", ref.id);
  return query
    .where("issues.project_id", "in", (eb) =>
      eb
        .selectFrom("projects")
        .select("projects.id")
        .where("projects.organization_id", "=", organizationId)
        .where("projects.slug", "=", ref.projectSlug),
    )
    .where("issues.short_number", "=", ref.shortNumber);
}
