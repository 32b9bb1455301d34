import { CompiledQuery } from "kysely";
import { quoteIdentifier } from "../../../db/identifiers.js";
import { MAX_DIGEST_ATTEMPTS } from "./attempts.js";

/** A queued event as the digest claims it. */
export interface QueueRow {
  id: string | number;
  project_id: number;
  organization_id: number;
  platform: string | null;
  event: string;
}

/**
 * The queue's hot statements, written once per instance as plain SQL: the accept path runs one of
 * them per group commit and the digest three per batch, so none is rebuilt by a query builder per
 * request (query building was measured at 40% of server CPU). Array parameters keep each
 * statement's text the same whatever the batch size.
 */
export class QueueStatements {
  readonly #append: string;
  readonly #claim: string;
  readonly #claimOne: string;
  readonly #remove: string;
  readonly #failed: string;
  readonly #depth: string;
  readonly #stats: string;

  constructor(schema: string) {
    const table = `${quoteIdentifier(schema)}.ingest_queue`;
    // The events travel as one JSON array whose elements are their queued texts, each taken back
    // as written (json, not jsonb, keeps an element's text): a text[] parameter made the driver
    // escape every quote of every event again (~12 µs of an acknowledgement; docs/performance.md,
    // "The accept path after wire replies and spliced queue text").
    this.#append =
      `INSERT INTO ${table} (project_id, organization_id, platform, event) ` +
      `SELECT project_id, organization_id, platform, event::text FROM ROWS FROM (unnest($1::integer[]), unnest($2::integer[]), unnest($3::text[]), json_array_elements($4::json)) AS queued(project_id, organization_id, platform, event)`;
    // SKIP LOCKED: consumers in several processes take disjoint batches instead of queueing behind one another.
    this.#claim = `SELECT id, project_id, organization_id, platform, event FROM ${table} WHERE attempts < ${MAX_DIGEST_ATTEMPTS} ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`;
    this.#claimOne = `SELECT id, project_id, organization_id, platform, event FROM ${table} WHERE id = $1 AND attempts < ${MAX_DIGEST_ATTEMPTS} FOR UPDATE SKIP LOCKED`;
    this.#remove = `DELETE FROM ${table} WHERE id = ANY($1::bigint[])`;
    this.#failed = `UPDATE ${table} SET attempts = attempts + 1 WHERE id = $1`;
    this.#depth = `SELECT count(*)::integer AS depth FROM ${table}`;
    // For metrics and readiness: events still to digest, those given up on, and when the oldest waiting one arrived.
    this.#stats =
      `SELECT count(*) FILTER (WHERE attempts < ${MAX_DIGEST_ATTEMPTS})::integer AS waiting, count(*) FILTER (WHERE attempts >= ${MAX_DIGEST_ATTEMPTS})::integer AS failed, ` +
      `(SELECT event::jsonb->>'received' FROM ${table} WHERE attempts < ${MAX_DIGEST_ATTEMPTS} ORDER BY id LIMIT 1) AS oldest FROM ${table}`;
  }

  /** `event`: each row's queued JSON text (an object). */
  append(
    rows: ReadonlyArray<{ projectId: number; organizationId: number; platform: string | null; event: string }>,
  ): CompiledQuery {
    return CompiledQuery.raw(this.#append, [
      rows.map((row) => row.projectId),
      rows.map((row) => row.organizationId),
      rows.map((row) => row.platform),
      `[${rows.map((row) => row.event).join(",")}]`,
    ]);
  }

  claim(limit: number): CompiledQuery<QueueRow> {
    return CompiledQuery.raw(this.#claim, [limit]) as CompiledQuery<QueueRow>;
  }

  /** One row by id, if no other consumer holds it (the one-by-one fallback after a failed batch). */
  claimOne(id: string | number): CompiledQuery<QueueRow> {
    return CompiledQuery.raw(this.#claimOne, [String(id)]) as CompiledQuery<QueueRow>;
  }

  remove(ids: ReadonlyArray<string | number>): CompiledQuery {
    return CompiledQuery.raw(this.#remove, [ids.map(String)]);
  }

  recordFailure(id: string | number): CompiledQuery {
    return CompiledQuery.raw(this.#failed, [String(id)]);
  }

  stats(): CompiledQuery<{ waiting: number; failed: number; oldest: string | null }> {
    return CompiledQuery.raw(this.#stats, []) as CompiledQuery<{
      waiting: number;
      failed: number;
      oldest: string | null;
    }>;
  }

  depth(): CompiledQuery<{ depth: number }> {
    return CompiledQuery.raw(this.#depth, []) as CompiledQuery<{ depth: number }>;
  }
}
