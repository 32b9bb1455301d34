import "reflect-metadata";
import { wireReplyOf, wireToResponse } from "../../src/http/wire.js";
import { describe, expect, it } from "vitest";
import { composePlugins } from "../../src/plugin/compose.js";
import type { FaultlinePlugin } from "../../src/plugin/plugin.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";
import { ingestPlugin } from "../../src/plugins/ingest/index.js";
import { ingestErrorRenderer } from "../../src/plugins/ingest/accept/cors.js";
import { ApiError } from "../../src/http/errors.js";

const plugins = [
  ...(firstPartyPlugins as readonly FaultlinePlugin[]).filter((plugin) => plugin.id !== "ingest"),
  ingestPlugin,
];

describe("ingest routes", () => {
  const { router } = composePlugins(plugins);
  const operationOf = (method: string, path: string) => {
    const match = router.match(method, path);
    return match.kind === "found" ? match.value.endpoint.operationId : match.kind;
  };

  it("compose with the first-party plugins without conflicts, leaving /api/0/ routes alone", () => {
    expect(operationOf("POST", "/api/12/envelope/")).toBe("ingest.envelope");
    expect(operationOf("POST", "/api/12/store")).toBe("ingest.store");
    expect(operationOf("OPTIONS", "/api/12/envelope/")).toBe("ingest.envelope.preflight");
    expect(operationOf("OPTIONS", "/api/12/store/")).toBe("ingest.store.preflight");
    expect(operationOf("GET", "/api/0/organizations/acme/")).not.toMatch(/^ingest|not-found/);
  });

  it("answer other methods with 405 and Allow: OPTIONS, POST", () => {
    expect(router.match("GET", "/api/12/envelope/")).toEqual({
      kind: "method-not-allowed",
      allow: ["OPTIONS", "POST"],
    });
  });
});

describe("ingestErrorRenderer", () => {
  it("claims only the ingest paths", () => {
    for (const path of ["/api/1/envelope/", "/api/1/store", "/api/web/envelope/"])
      expect(ingestErrorRenderer.matches(path)).toBe(true);
    for (const path of ["/api/0/organizations/acme/", "/api/1/envelope/extra/", "/envelope/"])
      expect(ingestErrorRenderer.matches(path)).toBe(false);
  });

  it("keeps Sentry's {detail} body and adds CORS and X-Sentry-Error (made header-safe)", async () => {
    const rendered = ingestErrorRenderer.render(new ApiError(400, "Invalid event: bad “quote”\nnext"), "req-1");
    const response = rendered instanceof Response ? rendered : wireToResponse(wireReplyOf(rendered));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: "Invalid event: bad “quote”\nnext" });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("x-sentry-error")).toBe("Invalid event: bad ?quote??next");
  });
});
