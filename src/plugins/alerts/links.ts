import type { DependencyContainer } from "tsyringe";
import { Options } from "../../container/tokens.js";
import type { TransactionScope } from "../../db/transaction.js";
import { PublicBaseUrl } from "../organizations/tokens.js";
import type { LinkContext } from "../webhooks/payloads.js";

/**
 * Links for alert payloads (public base URL, permalink template, organization slug). The slug is
 * read once per transaction and organization: a batch of events costs one query.
 */
export class AlertLinks {
  readonly #slugs = new WeakMap<TransactionScope, Map<number, Promise<string>>>();

  constructor(private readonly container: DependencyContainer) {}

  async forOrganization(scope: TransactionScope, organizationId: number): Promise<LinkContext> {
    let perScope = this.#slugs.get(scope);
    if (!perScope) this.#slugs.set(scope, (perScope = new Map()));
    let slug = perScope.get(organizationId);
    if (!slug) {
      slug = scope.trx.selectFrom("organizations").select("slug").where("id", "=", organizationId).executeTakeFirstOrThrow().then((row) => row.slug);
      perScope.set(organizationId, slug);
    }
    return {
      base: this.container.resolve(PublicBaseUrl),
      permalinkTemplate: this.container.resolve(Options).permalinkTemplate ?? null,
      organizationSlug: await slug,
    };
  }

  /** The API root links start from (absolute with a public URL, else relative to the mount point). */
  root(): string {
    const base = this.container.resolve(PublicBaseUrl);
    return base ? base.toString().replace(/\/+$/, "") : "";
  }
}
