import { expandScopes, type Scope } from "../../../auth/scopes.js";

/**
 * The consent rules of an installation (docs/authentication.md, "Installation tokens and
 * consent"). An app declares scopes; each organization that installs it consents to some of them.
 * The stored consent is kept a subset of the app's scopes, so the installation's tokens carry
 * exactly the consented set, and:
 *
 * - an app scope is *granted* when the consent covers it (implications apply: consent to
 *   `org:admin` covers an app narrowed to `org:read`), else it is *pending*;
 * - narrowing the app narrows the consent at once (what the app dropped must be approved again if
 *   it comes back);
 * - widening the app leaves the consent as it is: the added scopes are pending until approved.
 */

/** The app's scopes this consent covers, in the app's order: what the installation's tokens carry. */
export function grantedScopes(appScopes: readonly string[], consented: readonly string[]): string[] {
  const covered = expandScopes(consented);
  return appScopes.filter((scope) => covered.has(scope as Scope));
}

/** The app's scopes this consent does not cover: waiting for the organization's approval. */
export function pendingScopes(appScopes: readonly string[], consented: readonly string[]): string[] {
  const covered = expandScopes(consented);
  return appScopes.filter((scope) => !covered.has(scope as Scope));
}

/**
 * The consent after the app's scopes change. The owning organization consents implicitly (its
 * admin made the change, holding those scopes, or the trusted host did); any other keeps only what
 * it had consented to.
 */
export function consentAfterAppChange(
  newAppScopes: readonly string[],
  consented: readonly string[],
  isOwner: boolean,
): string[] {
  return isOwner ? [...newAppScopes] : grantedScopes(newAppScopes, consented);
}

/** The scopes in `scopes` that a holder of `held` does not have: nobody grants what they lack. */
export function scopesBeyond(scopes: readonly string[], held: ReadonlySet<Scope>): string[] {
  return scopes.filter((scope) => !held.has(scope as Scope));
}

export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((scope, index) => scope === b[index]);
}
