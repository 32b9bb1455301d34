import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "../auth/principal.js";
import type { Organization } from "../db/schema.js";

/** Per-request data, reachable from any service without threading it through every call. */
export interface RequestScope {
  requestId: string;
  principal: Principal | null;
  organization: Organization | null;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

/** The current request's scope, or undefined outside a request (in-process admin calls, jobs). */
export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
