import type { Kysely } from "kysely";
import { int4Id } from "../../../db/ids.js";
import type { Database, Organization } from "../../../db/schema.js";
import type { ScimDatabase } from "../tables.js";
import type { TransactionScope } from "../../../db/transaction.js";
import type { Actor } from "../../../events/event-bus.js";
import { invalidFilter, resourceNotFound } from "../errors.js";
import { type Filter, FilterSyntaxError, parseFilter } from "../resources/filter.js";

/** One SCIM request as the services see it. */
export interface ScimCall {
  organization: Organization;
  /** The organization's `…/scim/v2` URL as clients reach it (for `meta.location`). */
  baseUrl: string;
  actor: Actor;
}

/** A User or Group id from the path; anything that cannot be one is the same 404 as an unknown one. */
export function resourceId(raw: string, kind: "User" | "Group"): number {
  const id = int4Id(raw);
  if (id === null || id < 1) throw resourceNotFound(kind, raw);
  return id;
}

export function parseFilterParameter(text: string): Filter {
  try {
    return parseFilter(text);
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw invalidFilter(`Invalid filter: ${error.message}`);
    throw error;
  }
}

/** The transaction as the SCIM repository types it (the same tables, with the SCIM columns). */
export const scimDb = (db: Kysely<Database> | TransactionScope["trx"]) => db as unknown as Kysely<ScimDatabase>;
