import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import { TransactionMemo } from "../../../db/transaction-memo.js";

/** What links in payloads are built from. */
export interface LinkContext {
  /** `publicUrl` + `basePath`, or null when links stay relative to the mount point. */
  base: URL | null;
  permalinkTemplate: string | null;
  organizationSlug: string;
}

/**
 * Link contexts for webhook and alert payloads. The organization's slug is read once per
 * transaction: a batch of ingested events costs one query, not one per event.
 */
export class OrganizationLinks {
  readonly #slugs = new TransactionMemo<number, Promise<string>>();

  constructor(
    readonly base: URL | null,
    readonly permalinkTemplate: string | null,
  ) {}

  async forOrganization(scope: TransactionScope, organizationId: number): Promise<LinkContext> {
    const slug = await this.#slugs.get(scope, organizationId, () => readSlug(scope.trx, organizationId));
    return { base: this.base, permalinkTemplate: this.permalinkTemplate, organizationSlug: slug };
  }

  /** The API root links start from (absolute with a public URL, else relative to the mount point). */
  root(): string {
    return this.base ? this.base.toString().replace(/\/+$/, "") : "";
  }
}

async function readSlug(db: Kysely<Database>, organizationId: number): Promise<string> {
  const row = await db
    .selectFrom("organizations")
    .select("slug")
    .where("id", "=", organizationId)
    .executeTakeFirstOrThrow();
  return row.slug;
}

/**
 * Where this host is reached for a request: the configured public origin, else the request's own
 * (adapters read X-Forwarded-* only behind a trusted proxy), with the request's mount prefix.
 */
export function requestBaseUrl(publicBase: URL | null, url: URL, basePath: string): URL {
  return new URL(`${publicBase?.origin ?? url.origin}${basePath}`);
}
