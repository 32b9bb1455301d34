import type { ServiceHook } from "./tables.js";
import { isoDate } from "../../http/format.js";

/** A hook as every read shows it: the secret only ever appears in the creation response. */
export function serializeHook(hook: ServiceHook) {
  return {
    id: hook.id,
    dateCreated: isoDate(hook.date_created),
    url: hook.url,
    events: [...hook.events].sort(),
    status: hook.status,
  };
}
