import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument, RouteTable } from "../../src/http/openapi.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { Validator } from "@seriousme/openapi-schema-validator";

type Operation = {
  operationId: string;
  parameters?: Array<{ in: string; name: string }>;
  security: Array<Record<string, string[]>>;
  "x-scopes": string[];
  responses: Record<string, unknown>;
};
type Document = { paths: Record<string, Record<string, Operation>>; servers: unknown };

const committed = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as Document;

let instance: TestInstance;
beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false });
});
afterAll(() => instance?.close());

describe("OpenAPI", () => {
  it("docs/openapi.json is what the instance serves (run `npm run openapi` after changing an endpoint)", async () => {
    const response = await instance.faultline.handler(new Request("http://localhost:3000/api/0/openapi.json"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(committed);
  });

  it("validates against the official OpenAPI 3.1 schema", async () => {
    const validator = new Validator();
    const result = await validator.validate(committed);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // The validator does catch a broken document (so the assertion above can fail).
    expect(
      (await new Validator().validate({ ...committed, paths: { "/a/": { get: { responses: "none" } } } })).valid,
    ).toBe(false);
  });

  it("declares exactly the path parameters of each path template", () => {
    for (const [path, item] of Object.entries(committed.paths)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      for (const [method, operation] of Object.entries(item)) {
        const declared = (operation.parameters ?? [])
          .filter((p) => p.in === "path")
          .map((p) => p.name)
          .sort();
        expect(declared, `${method} ${path}`).toEqual(templated);
      }
    }
  });

  it("documents every route with its scopes (security and x-scopes) and its error responses", () => {
    const routes = instance.faultline.container.resolve(RouteTable);
    const operations = Object.values(committed.paths).flatMap((item) => Object.values(item));
    expect(operations.map((op) => op.operationId).sort()).toEqual(
      routes.map((route) => route.endpoint.operationId).sort(),
    );
    for (const { endpoint } of routes) {
      const op = operations.find((candidate) => candidate.operationId === endpoint.operationId) as Operation;
      expect(op["x-scopes"], endpoint.operationId).toEqual(endpoint.scopes ?? []);
      if (endpoint.auth === "none") expect(op.security).toEqual([]);
      else {
        expect(op.security.length).toBeGreaterThan(0);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "403"]));
      }
      for (const scope of endpoint.scopes ?? []) expect(op.security).toContainEqual({ bearerAuth: [scope] });
      if (endpoint.body) expect(op.responses, endpoint.operationId).toHaveProperty("400");
    }
  });

  it("is generated from the endpoint definitions (zod schemas, input side)", () => {
    const routes = instance.faultline.container.resolve(RouteTable);
    const document = openApiDocument(routes, { version: "0" }) as unknown as Document;
    const update = document.paths["/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/"]
      ?.put as unknown as {
      requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
    };
    expect(update.requestBody.content["application/json"].schema.properties.status).toMatchObject({
      type: "string",
      enum: expect.arrayContaining(["resolved"]),
    });
  });
});
