import { describe, expect, it } from "vitest";
import { Router } from "../../src/http/router.js";

describe("Router", () => {
  const router = new Router<string>();
  router.add("GET", "/api/0/organizations/{org}/", "org", "p");
  router.add("GET", "/api/0/organizations/{org}/issues/", "issues", "p");
  router.add("PUT", "/api/0/organizations/{org}/issues/{issue}/", "update", "p");
  router.add("GET", "/api/0/organizations/{org}/issues/{issue}/", "get", "p");
  router.add("GET", "/api/0/organizations/stats/", "static-wins", "p");
  router.add("GET", "/api/{project_id}/store/", "store", "p");

  it("matches with and without the trailing slash, decoding params", () => {
    expect(router.match("GET", "/api/0/organizations/acme/")).toMatchObject({
      kind: "found",
      value: "org",
      params: { org: "acme" },
    });
    expect(router.match("GET", "/api/0/organizations/acme")).toMatchObject({ kind: "found", value: "org" });
    expect(router.match("GET", "/api/0/organizations/a%20b/issues/7/")).toMatchObject({
      params: { org: "a b", issue: "7" },
    });
  });

  it("prefers static segments and backtracks to params", () => {
    expect(router.match("GET", "/api/0/organizations/stats/")).toMatchObject({ value: "static-wins" });
    expect(router.match("GET", "/api/0/organizations/stats/issues/")).toMatchObject({
      value: "issues",
      params: { org: "stats" },
    });
  });

  it("answers method-not-allowed with the allowed methods, and HEAD falls back to GET", () => {
    expect(router.match("DELETE", "/api/0/organizations/acme/issues/1/")).toEqual({
      kind: "method-not-allowed",
      allow: ["GET", "HEAD", "PUT"],
    });
    expect(router.match("HEAD", "/api/0/organizations/acme/")).toMatchObject({ kind: "found", value: "org" });
  });

  it("answers not-found for unknown and malformed paths", () => {
    expect(router.match("GET", "/api/0/nope/")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/api/0/organizations/%E0%A4%A/")).toEqual({ kind: "not-found" });
  });

  it("throws on the same method and path shape twice, naming both owners", () => {
    const r = new Router<string>();
    r.add("GET", "/x/{a}/", "one", "first");
    expect(() => r.add("GET", "/x/{b}", "two", "second")).toThrow(/plugin "second".*plugin "first"/);
  });
});
