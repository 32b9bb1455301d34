import { describe, expect, it } from "vitest";
import {
  consentAfterAppChange,
  grantedScopes,
  pendingScopes,
  scopesBeyond,
} from "../../src/plugins/installations/access/consent.js";
import { expandScopes } from "../../src/auth/scopes.js";

describe("installation consent rules", () => {
  it("grants the app's scopes the consent covers, implications included; the rest is pending", () => {
    expect(grantedScopes(["event:read", "org:admin"], ["event:read"])).toEqual(["event:read"]);
    expect(pendingScopes(["event:read", "org:admin"], ["event:read"])).toEqual(["org:admin"]);
    // Consent to org:admin covers an app narrowed to org:read; consent to org:read does not cover org:admin.
    expect(grantedScopes(["org:read"], ["org:admin"])).toEqual(["org:read"]);
    expect(pendingScopes(["org:admin"], ["org:read"])).toEqual(["org:admin"]);
    // Never more than the app asks for, whatever was consented.
    expect(grantedScopes(["event:read"], ["event:read", "member:admin"])).toEqual(["event:read"]);
    expect(grantedScopes(["event:read"], [])).toEqual([]);
  });

  it("follows an app change: the owner consents to everything, anyone else keeps only what it had and the app still asks for", () => {
    expect(consentAfterAppChange(["event:read", "org:admin"], ["event:read"], true)).toEqual([
      "event:read",
      "org:admin",
    ]);
    expect(consentAfterAppChange(["event:read", "org:admin"], ["event:read"], false)).toEqual(["event:read"]);
    expect(consentAfterAppChange(["member:read"], ["event:read", "member:admin"], false)).toEqual(["member:read"]);
    // Narrowed away, then back: the consent went with the narrowing.
    const narrowed = consentAfterAppChange(["event:read"], ["event:read", "member:read"], false);
    expect(consentAfterAppChange(["event:read", "member:read"], narrowed, false)).toEqual(["event:read"]);
  });

  it("names the scopes a holder lacks", () => {
    expect(scopesBeyond(["member:read", "org:admin"], expandScopes(["member:write"]))).toEqual(["org:admin"]);
    expect(scopesBeyond(["org:read"], expandScopes(["org:admin"]))).toEqual([]);
  });
});
