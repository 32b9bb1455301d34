import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

describe("bad input gets a documented 4xx, never a 500", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    instance = await createTestInstance({ limits: { bodyBytes: 1024 } });
    token = (await seedOrganization(instance.faultline)).allScopesToken;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body,
      headers: { ...bearer(token), "Content-Type": "application/json", ...headers },
    });

  it("malformed JSON → 400 naming the parse error", async () => {
    const response = await post("/api/0/api-tokens/", '{"scopes": [');
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.detail).toMatch(/^Malformed JSON body: /);
  });

  it("a JSON body that is not an object (null included) → 400, not read as an empty body", async () => {
    for (const body of ["null", "[]", "42", '"text"']) {
      const response = await post("/api/0/api-tokens/", body);
      expect(response.status, body).toBe(400);
      expect(JSON.stringify(await response.json()), body).toMatch(/object/i);
    }
  });

  it("a body over the limit → 413, declared or streamed", async () => {
    const declared = await post("/api/0/api-tokens/", JSON.stringify({ name: "x".repeat(2000), scopes: ["org:read"] }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ detail: "Request body too large (limit 1 KiB)" });
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode("x".repeat(500)));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/api/0/api-tokens/`, {
      method: "POST",
      body: chunks,
      headers: bearer(token),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("an unknown route → 404 with a detail", async () => {
    const response = await fetch(`${server.url}/api/0/nothing-here/`, { headers: bearer(token) });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "The requested resource does not exist" });
  });

  it("a wrong method → 405 with Allow", async () => {
    const response = await fetch(`${server.url}/api/0/organizations/acme/`, {
      method: "PATCH",
      headers: bearer(token),
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, PUT");
    expect(await response.json()).toEqual({ detail: 'Method "PATCH" not allowed.' });
  });

  it("a non-numeric id where one is required → 400 naming the field", async () => {
    const response = await fetch(`${server.url}/api/0/api-tokens/abc/`, { method: "DELETE", headers: bearer(token) });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors).toEqual({ token_id: ["must be a numeric id"] });
    expect(body.detail).toBe("Invalid request: token_id: must be a numeric id");
  });

  it("wrong field types and unknown scopes → 400 with field errors; nothing is written", async () => {
    const response = await post("/api/0/api-tokens/", JSON.stringify({ scopes: ["org:read", "org:dance"], name: 7 }));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors["scopes.1"]).toEqual(["Unknown scope: org:dance"]);
    expect(body.errors.name).toHaveLength(1);
    const list = await fetch(`${server.url}/api/0/api-tokens/`, { headers: bearer(token) });
    expect((await list.json()).map((t: { name: string | null }) => t.name)).not.toContain(7);
  });

  it("invalid pagination parameters → 400; over 100 is clamped", async () => {
    const zero = await fetch(`${server.url}/api/0/organizations/acme/projects/?per_page=0`, { headers: bearer(token) });
    expect(zero.status).toBe(400);
    const text = await fetch(`${server.url}/api/0/organizations/acme/projects/?per_page=abc`, {
      headers: bearer(token),
    });
    expect(text.status).toBe(400);
    const cursor = await fetch(`${server.url}/api/0/organizations/acme/projects/?cursor=yesterday`, {
      headers: bearer(token),
    });
    expect(cursor.status).toBe(400);
    expect(await cursor.json()).toEqual({ detail: "Invalid cursor parameter." });
    const big = await fetch(`${server.url}/api/0/organizations/acme/projects/?per_page=500`, {
      headers: bearer(token),
    });
    expect(big.status).toBe(200);
    expect(big.headers.get("x-per-page")).toBe("100");
  });

  it("echoes a well-formed X-Request-Id and replaces a malformed one", async () => {
    const echoed = await fetch(`${server.url}/api/0/nothing/`, { headers: { "X-Request-Id": "trace-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${server.url}/api/0/nothing/`, { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("an unexpected failure → 500 with an errorId that matches the request id, logged", async () => {
    const logged: object[] = [];
    const broken = await createTestInstance({
      logger: { debug() {}, info() {}, warn() {}, error: (obj: object | string) => void logged.push(obj as object) },
      authenticate: () => {
        throw new Error("session store down");
      },
    });
    try {
      const response = await broken.faultline.handler(new Request("http://localhost/api/0/api-tokens/"));
      expect(response.status).toBe(500);
      const body = await response.json();
      expect(body).toEqual({ detail: "Internal Error", errorId: response.headers.get("x-request-id") });
      expect(JSON.stringify(body)).not.toContain("session store down");
      expect(logged).toContainEqual(expect.objectContaining({ errorId: body.errorId }));
    } finally {
      await broken.close();
    }
  });
});
