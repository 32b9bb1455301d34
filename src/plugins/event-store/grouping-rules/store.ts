import { ExpiringCache } from "../../../cache/expiring-cache.js";
import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { type GroupingRules, parseFingerprintRules, parseStackTraceRules } from "../grouping/index.js";

/** A project's rules as saved: Sentry's two text settings. */
export interface GroupingRulesText {
  fingerprintingRules: string;
  groupingEnhancements: string;
}

const NO_RULES_TEXT: GroupingRulesText = Object.freeze({ fingerprintingRules: "", groupingEnhancements: "" });
const MAX_CACHED_PROJECTS = 10_000;

/**
 * The projects' grouping rules (docs/grouping.md). The write path asks for them on every batch,
 * so the parsed rules are cached per project for `ttlMs` on this object (one per instance): a
 * change through this instance applies to the next events at once (`forget`, after the change
 * commits), on other instances within `ttlMs`.
 */
export class GroupingRulesStore {
  readonly #cache: ExpiringCache<number, GroupingRules | null>;

  constructor(clock: Clock, ttlMs: number) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_PROJECTS);
  }

  /**
   * The project's parsed rules, null when it has none (the write path's fast case). Read through
   * `db`: the digest's transaction (an embedded database has a single connection).
   */
  forProject(db: Kysely<Database>, projectId: number): Promise<GroupingRules | null> {
    return this.#cache.get(projectId, () =>
      this.load(db, [projectId]).then((texts) => compile(texts.get(projectId) ?? NO_RULES_TEXT)),
    );
  }

  /** Drops a project's cached rules: its next events read them afresh. */
  forget(projectId: number): void {
    this.#cache.forget(projectId);
  }

  /** Each project's rules as saved (empty texts where none are), read through `db`. */
  async load(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, GroupingRulesText>> {
    const rows =
      projectIds.length === 0
        ? []
        : await db.selectFrom("project_grouping_rules").selectAll().where("project_id", "in", projectIds).execute();
    const texts = new Map(projectIds.map((id) => [id, NO_RULES_TEXT]));
    for (const row of rows)
      texts.set(row.project_id, {
        fingerprintingRules: row.fingerprinting_rules,
        groupingEnhancements: row.grouping_enhancements,
      });
    return texts;
  }

  /** Stores the given texts over the project's current ones (in the caller's transaction). */
  async save(trx: Kysely<Database>, projectId: number, values: Partial<GroupingRulesText>): Promise<void> {
    const current = (await this.load(trx, [projectId])).get(projectId) ?? NO_RULES_TEXT;
    const next = { ...current, ...values };
    const columns = {
      fingerprinting_rules: next.fingerprintingRules,
      grouping_enhancements: next.groupingEnhancements,
    };
    await trx
      .insertInto("project_grouping_rules")
      .values({ project_id: projectId, ...columns })
      .onConflict((conflict) => conflict.column("project_id").doUpdateSet(columns))
      .execute();
  }
}

/**
 * The saved texts parsed; null without any rule. They were checked when saved, so a line that no
 * longer parses (a later version's stricter syntax) is skipped rather than stopping ingestion.
 */
function compile(text: GroupingRulesText): GroupingRules | null {
  const fingerprinting = parseFingerprintRules(text.fingerprintingRules).rules;
  const stackTrace = parseStackTraceRules(text.groupingEnhancements).rules;
  return fingerprinting.length === 0 && stackTrace.length === 0 ? null : { fingerprinting, stackTrace };
}
