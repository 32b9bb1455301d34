import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MigrationsPendingError } from "../../src/db/errors.js";
import { type AnyEndpoint, defineEndpoint, json } from "../../src/http/endpoint.js";
import { ApiError } from "../../src/http/errors.js";
import { Router } from "../../src/http/router.js";
import { authorizeFor } from "../../src/http/stages/access.js";
import { BodyReader, queryObject } from "../../src/http/stages/input.js";
import { checkRouteInput, matchRoute, stripBasePath, trimSlash } from "../../src/http/stages/match.js";
import { errorReply, finish } from "../../src/http/stages/render.js";
import { silentLogger } from "../../src/logging/logger.js";
import type { FaultlinePlugin } from "../../src/plugin/plugin.js";
import type { Principal } from "../../src/auth/principal.js";

const endpoint = defineEndpoint({
  method: "POST",
  path: "/api/0/things/{thing}/",
  operationId: "things.update",
  scopes: ["project:write"],
  body: z.object({ name: z.string() }),
  handler: () => json({}),
}) as AnyEndpoint;

function router() {
  const routes = new Router<{ endpoint: AnyEndpoint; plugin: FaultlinePlugin }>();
  routes.add("POST", endpoint.path, { endpoint, plugin: { id: "things" } }, "things");
  return routes;
}

const caught = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

describe("the request pipeline's stages, each on its own", () => {
  it("match: the path below the mount prefix, the route, or the 404/405 that says why not", () => {
    expect([
      trimSlash("/faultline/"),
      stripBasePath("/faultline/api/0/", "/faultline"),
      stripBasePath("/faultline", "/faultline"),
      stripBasePath("/other/", "/faultline"),
    ]).toEqual(["/faultline", "/api/0/", "/", null]);
    const url = new URL("http://host/api/0/things/a/");
    expect(matchRoute(router(), "POST", "/api/0/things/a/", url, 8192)).toMatchObject({
      endpoint: { operationId: "things.update" },
      params: { thing: "a" },
    });
    expect(caught(() => matchRoute(router(), "POST", null, url, 8192))).toMatchObject({ status: 404 });
    expect(caught(() => matchRoute(router(), "GET", "/api/0/things/a/", url, 8192))).toMatchObject({
      status: 405,
      headers: { Allow: "POST" },
    });
    expect(
      caught(() =>
        matchRoute(
          router(),
          "POST",
          "/api/0/things/a/",
          new URL(`http://host/api/0/things/a/?q=${"x".repeat(9000)}`),
          8192,
        ),
      ),
    ).toMatchObject({ status: 414 });
    const nul = matchRoute(router(), "POST", "/api/0/things/a%00b/", url, 8192);
    expect(caught(() => checkRouteInput({ ...nul, params: { thing: "a\u0000b" } }, url))).toBeInstanceOf(ApiError);
  });

  it("authorize: no principal, no access; a missing scope is a 403 naming it", async () => {
    const db = undefined as never; // no organization in the path: the database is not read
    expect(await authorizeFor(endpoint, null, {}, db)).toEqual({ organization: null, scopes: new Set() });
    const reader = { kind: "user", userId: 1, scopes: new Set(["project:read"]) } as unknown as Principal;
    await expect(authorizeFor(endpoint, reader, {}, db)).rejects.toMatchObject({
      status: 403,
      extra: { requiredScopes: ["project:write"] },
    });
    const writer = { kind: "user", userId: 1, scopes: new Set(["project:write"]) } as unknown as Principal;
    expect((await authorizeFor(endpoint, writer, {}, db)).scopes).toEqual(new Set(["project:write"]));
  });

  it("input: a JSON body validated by the endpoint's schema, an empty one read as {}, repeated query keys as arrays", async () => {
    const reader = new BodyReader({ bodyBytes: 1024, bodyDepth: 8 }, silentLogger);
    const post = (body: string) =>
      new Request("http://host/", { method: "POST", body, headers: { "Content-Type": "application/json" } });
    expect(await reader.read(endpoint, post('{"name":"a"}'))).toEqual({ body: { name: "a" }, rawBody: null });
    await expect(reader.read(endpoint, post(""))).rejects.toMatchObject({ status: 400 });
    await expect(reader.read(endpoint, post(JSON.stringify({ name: "x".repeat(2000) })))).rejects.toMatchObject({
      status: 413,
    });
    expect(queryObject(new URLSearchParams("a=1&b=2&a=3"))).toEqual({ a: ["1", "3"], b: "2" });
  });

  it("render: an outage or pending migrations are a 503 with Retry-After, the unexpected a 500 with the request id", () => {
    const outage = errorReply(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      "/api/0/",
      "req1",
      silentLogger,
      [],
    );
    expect(outage).toMatchObject({ status: 503, headers: { "Retry-After": "5" } });
    expect(
      errorReply(new MigrationsPendingError("faultline", ["0017_x"]), "/api/0/", "req2", silentLogger, []),
    ).toMatchObject({ status: 503, body: { pendingMigrations: ["0017_x"] } });
    expect(errorReply(new TypeError("boom"), "/api/0/", "req3", silentLogger, [])).toMatchObject({
      status: 500,
      body: { detail: "Internal Error", errorId: "req3" },
    });
    expect(errorReply(new ApiError(409, "taken"), "/api/0/", "req4", silentLogger, [])).toMatchObject({
      status: 409,
      body: { detail: "taken" },
    });
    const scim = {
      matches: (path: string) => path.startsWith("/scim/"),
      render: (error: ApiError) => json({ scimStatus: String(error.status) }, { status: error.status }),
    };
    expect(errorReply(new ApiError(404, "gone"), "/scim/v2/Users", "req5", silentLogger, [scim])).toMatchObject({
      status: 404,
      body: { scimStatus: "404" },
    });
  });

  it("render: every reply carries its request id; HEAD gets no body", async () => {
    const wire = finish(json({ a: 1 }), "req6", true);
    expect(wire).toMatchObject({
      status: 200,
      body: null,
      headers: expect.arrayContaining([["X-Request-Id", "req6"]]),
    });
    const response = finish(new Response("text"), "req7", false) as Response;
    expect([response.headers.get("x-request-id"), await response.text()]).toEqual(["req7", "text"]);
  });
});
