import type { DependencyContainer } from "tsyringe";
import { resolveActor } from "../../../auth/actor.js";
import type { Principal } from "../../../auth/principal.js";
import type { Scope } from "../../../auth/scopes.js";
import { Db } from "../../../container/tokens.js";
import type { Organization } from "../../../db/schema.js";
import { forbidden } from "../../../http/stages/access.js";
import { IssueTombstonesToken, IssueWorkflowToken } from "../tokens.js";

/** What a discarding request carries: the caller, its scopes here, and the instance's container. */
export interface DiscardCaller {
  container: DependencyContainer;
  organization: Organization;
  principal: Principal;
  scopes: ReadonlySet<Scope>;
}

/**
 * `PUT …/issues/{id}/` (or the bulk form) with `{"discard": true}` (docs/issues.md, "Discard"):
 * deletes the issues as `DELETE` does, in the same transaction recording a tombstone per issue
 * with its hashes, so that their future events are refused at accept. A deletion, so it needs
 * `event:admin` as `DELETE` does. Returns how many issues were discarded.
 */
export async function discardIssues(caller: DiscardCaller, ids: number[]): Promise<number> {
  if (!caller.scopes.has("event:admin")) throw forbidden(["event:admin"]);
  if (ids.length === 0) return 0;
  const { container, organization, principal } = caller;
  const actor = await resolveActor(container.resolve(Db), principal);
  const tombstones = container.resolve(IssueTombstonesToken);
  return container
    .resolve(IssueWorkflowToken)
    .delete({ organization, principal }, ids, (scope, rows) => tombstones.record(scope, rows, actor.userId));
}
