import { describe, expect, it } from "vitest";
import { expandScopes, intersectScopes, ROLE_SCOPES } from "../../src/auth/scopes.js";
import { createTokenSecret, hashToken } from "../../src/auth/token-secret.js";
import { formatCursor, keysetPage, parseCursor } from "../../src/http/pagination.js";

describe("scopes", () => {
  it("applies the implications of the catalogue", () => {
    expect([...expandScopes(["event:admin"])].sort()).toEqual(["event:admin", "event:read", "event:write"]);
    expect(expandScopes(["org:admin"]).has("org:integrations")).toBe(true);
    expect(expandScopes(["org:write"]).has("org:integrations")).toBe(false);
    expect(expandScopes(["bogus:scope"]).size).toBe(0);
  });

  it("limits a user token by the user's role", () => {
    const token = expandScopes(["org:admin", "event:admin"]);
    expect([...intersectScopes(token, ROLE_SCOPES.member)].sort()).toEqual([
      "event:admin",
      "event:read",
      "event:write",
      "org:read",
    ]);
    expect(intersectScopes(token, ROLE_SCOPES.billing).size).toBe(0);
    expect(intersectScopes(token, ROLE_SCOPES.owner).has("org:admin")).toBe(true);
  });
});

describe("token secrets", () => {
  it("prefixes by kind, keeps only a hash and the last four characters", () => {
    const secret = createTokenSecret("organization");
    expect(secret.plaintext).toMatch(/^flo_[A-Za-z0-9]{40}$/);
    expect(secret.hash).toBe(hashToken(secret.plaintext));
    expect(secret.hash).not.toContain(secret.plaintext.slice(4));
    expect(secret.lastCharacters).toBe(secret.plaintext.slice(-4));
    expect(() => createTokenSecret("user", "flo_aaaaaaaaaaaaaaaaaaaaaaaa")).toThrow(/flu_/);
  });
});

describe("keyset cursors", () => {
  it("round-trips and rejects malformed cursors", () => {
    expect(parseCursor("1763800000000:17:1")).toEqual({ value: 1763800000000, id: 17, isPrev: true });
    expect(formatCursor({ value: 5, id: 2, isPrev: false })).toBe("5:2:0");
    // Epoch microseconds (16 digits) fit; past a safe integer does not.
    expect(parseCursor("1763800000000123:17:0")).toEqual({ value: 1763800000000123, id: 17, isPrev: false });
    for (const bad of ["abc", "1:2", "1:2:3", "1:-2:0", "1.5:2:0", "9999999999999999:1:0", "12345678901234567:1:0"])
      expect(() => parseCursor(bad)).toThrow("Invalid cursor parameter.");
  });

  it("walks every row exactly once, also with equal keys, with no empty page in the middle", async () => {
    const rows = Array.from({ length: 23 }, (_, i) => ({ id: i + 1, key: 1000 - Math.floor(i / 4) }));
    const sorted = [...rows].sort((a, b) => b.key - a.key || b.id - a.id);
    const fetch = async (bound: {
      after: { value: number; id: number } | null;
      order: "asc" | "desc";
      limit: number;
    }) => {
      const beyond = (r: (typeof rows)[number]) =>
        !bound.after ||
        (bound.order === "desc"
          ? r.key < bound.after.value || (r.key === bound.after.value && r.id < bound.after.id)
          : r.key > bound.after.value || (r.key === bound.after.value && r.id > bound.after.id));
      const list = bound.order === "desc" ? sorted : [...sorted].reverse();
      return list.filter(beyond).slice(0, bound.limit);
    };
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await keysetPage(fetch, { cursor, limit: 5, keyOf: (r) => r.key, idOf: (r) => r.id });
      expect(page.rows.length).toBeGreaterThan(0);
      seen.push(...page.rows.map((r) => r.id));
      if (!page.next.results) break;
      cursor = formatCursor(page.next.cursor);
    }
    expect(seen).toEqual(sorted.map((r) => r.id));
  });
});
