import { ExpiringCache } from "../../../cache/expiring-cache.js";
import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import type { ProjectRef } from "../../event-store/index.js";
import { invalidDsnKey, missingDsnKey } from "./errors.js";

/** An active DSN key and the project it sends to. */
export interface ProjectKeyRecord {
  keyId: number;
  project: ProjectRef;
  /** At most `count` events per `windowMs`; null = unlimited. */
  rateLimit: { count: number; windowMs: number } | null;
}

/** A limit without a stored window is per minute, as every limit was before windows. */
const DEFAULT_WINDOW_SECONDS = 60;

/** Real keys are 32 hex characters; this only keeps obvious garbage away from the database. */
const PLAUSIBLE_KEY = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_CACHED_KEYS = 10_000;

/**
 * Resolves DSN public keys (`project_keys` joined to `projects`). Valid keys are cached for
 * `ttlMs` on this object (one per instance) because every ingest request needs one; concurrent
 * lookups of one key share a query. Unknown and disabled keys are not cached, so enabling a key
 * works at once; a change made through this instance (`forget`, called when the organizations
 * plugin announces a key change) takes effect at once here, and within `ttlMs` on other instances.
 */
export class ProjectKeyResolver {
  readonly #cache: ExpiringCache<string, ProjectKeyRecord | null>;

  constructor(
    private readonly db: () => Kysely<Database>,
    clock: Clock,
    ttlMs: number,
  ) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_KEYS, (record) => record !== null);
  }

  /** The key's record when it is active and belongs to `projectId`; 401 otherwise. */
  async authenticate(publicKey: string | null, projectId: number): Promise<ProjectKeyRecord> {
    if (publicKey === null) throw missingDsnKey();
    const record = PLAUSIBLE_KEY.test(publicKey) ? await this.#lookup(publicKey) : null;
    if (!record || record.project.id !== projectId) throw invalidDsnKey();
    return record;
  }

  /** Drops cached lookups of these keys: the next request reads the key's current row. */
  forget(publicKeys: readonly string[]): void {
    for (const publicKey of publicKeys) this.#cache.forget(publicKey);
  }

  #lookup(publicKey: string): Promise<ProjectKeyRecord | null> {
    return this.#cache.get(publicKey, () => this.#query(publicKey));
  }

  async #query(publicKey: string): Promise<ProjectKeyRecord | null> {
    const row = await this.db()
      .selectFrom("project_keys as k")
      .innerJoin("projects as p", "p.id", "k.project_id")
      .select([
        "k.id",
        "k.is_active",
        "k.rate_limit_per_minute",
        "k.rate_limit_window",
        "p.id as project_id",
        "p.organization_id",
        "p.platform",
      ])
      .where("k.public_key", "=", publicKey)
      .executeTakeFirst();
    if (!row || !row.is_active) return null;
    return {
      keyId: row.id,
      project: { id: row.project_id, organizationId: row.organization_id, platform: row.platform },
      rateLimit:
        row.rate_limit_per_minute === null
          ? null
          : { count: row.rate_limit_per_minute, windowMs: (row.rate_limit_window ?? DEFAULT_WINDOW_SECONDS) * 1000 },
    };
  }
}
