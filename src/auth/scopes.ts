import { z } from "zod";
import type { MemberRole } from "../db/schema.js";

/** Every scope a token may carry (Sentry's catalogue). */
export const SCOPES = [
  "org:read",
  "org:write",
  "org:admin",
  "org:integrations",
  "member:read",
  "member:write",
  "member:admin",
  "team:read",
  "team:write",
  "team:admin",
  "project:read",
  "project:write",
  "project:admin",
  "project:releases",
  "event:read",
  "event:write",
  "event:admin",
  "alerts:read",
  "alerts:write",
] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

/** A scope name from the catalogue, with an error that names the unknown one. */
export const scopeSchema = z.enum(SCOPES, { error: (issue) => `Unknown scope: ${String(issue.input)}` });

/** What holding a scope also grants: `X:admin` ⊇ `X:write` ⊇ `X:read`; `org:admin` ⊇ `org:integrations`. */
const IMPLIED: Partial<Record<Scope, Scope[]>> = {
  "org:admin": ["org:write", "org:read", "org:integrations"],
  "org:write": ["org:read"],
  "member:admin": ["member:write", "member:read"],
  "member:write": ["member:read"],
  "team:admin": ["team:write", "team:read"],
  "team:write": ["team:read"],
  "project:admin": ["project:write", "project:read"],
  "project:write": ["project:read"],
  "event:admin": ["event:write", "event:read"],
  "event:write": ["event:read"],
  "alerts:write": ["alerts:read"],
};

/** The scopes a set grants once implications are applied. Unknown strings are dropped. */
export function expandScopes(scopes: Iterable<string>): Set<Scope> {
  const out = new Set<Scope>();
  for (const scope of scopes) {
    if (!isScope(scope)) continue;
    out.add(scope);
    for (const implied of IMPLIED[scope] ?? []) out.add(implied);
  }
  return out;
}

/** What each organization role may do (Sentry's role scopes; `billing` has none of these). */
export const ROLE_SCOPES: Record<MemberRole, ReadonlySet<Scope>> = {
  billing: new Set(),
  member: expandScopes([
    "event:admin",
    "project:releases",
    "project:read",
    "org:read",
    "member:read",
    "team:read",
    "alerts:write",
  ]),
  admin: expandScopes([
    "event:admin",
    "org:read",
    "org:integrations",
    "member:read",
    "project:admin",
    "project:releases",
    "team:admin",
    "alerts:write",
  ]),
  manager: expandScopes([
    "event:admin",
    "member:admin",
    "project:admin",
    "project:releases",
    "team:admin",
    "org:write",
    "org:integrations",
    "alerts:write",
  ]),
  owner: new Set(SCOPES),
};

/** The scopes granted by both sets (a user token is limited by its user's role). */
export function intersectScopes(a: ReadonlySet<Scope>, b: ReadonlySet<Scope>): Set<Scope> {
  return new Set([...a].filter((scope) => b.has(scope)));
}
