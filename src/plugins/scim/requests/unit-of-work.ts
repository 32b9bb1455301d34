import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import { isUniqueViolation } from "../../../db/errors.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { DomainEventMap, DomainEventName, EventBus } from "../../../events/event-bus.js";
import { type ScimCall, scimDb } from "./call.js";
import { uniqueness } from "../errors.js";
import type { ScimDb, ScimRepository } from "../repository.js";

/** What a write gets: its transaction (typed with the SCIM columns), the time, and event emission inside it. */
export interface ScimWrite {
  db: ScimDb;
  now: Date;
  emit<N extends DomainEventName>(name: N, payload: DomainEventMap[N]): Promise<void>;
}

/**
 * Runs SCIM writes: one transaction per request holding the organization's SCIM lock, so that the
 * uniqueness checks hold and all PATCH operations apply or none; domain events are emitted inside it.
 */
export class ScimUnitOfWork {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: ScimRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** `conflict` words the 409 for a unique violation that slipped past the checks (a concurrent writer elsewhere). */
  async write<T>(call: ScimCall, conflict: string, work: (write: ScimWrite) => Promise<T>): Promise<T> {
    try {
      return await runInTransaction(this.db(), async (scope: TransactionScope) => {
        const db = scimDb(scope.trx);
        await this.repository.lockOrganization(db, call.organization.id);
        const now = this.clock.now();
        const emit = <N extends DomainEventName>(name: N, payload: DomainEventMap[N]) =>
          this.events.emit(scope, {
            name,
            organizationId: call.organization.id,
            actor: call.actor,
            occurredAt: now,
            payload,
          });
        return work({ db, now, emit });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw uniqueness(conflict);
      throw error;
    }
  }

  /** For reads outside a transaction. */
  read(): ScimDb {
    return scimDb(this.db());
  }
}
