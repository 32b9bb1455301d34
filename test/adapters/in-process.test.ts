import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { ApiError, defineEndpoint, definePlugin, type HookContext, json } from "../../src/index.js";
import { apiNameOf } from "../../src/http/in-process.js";
import { RouteTable } from "../../src/http/openapi.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";

/** A host plugin whose hook records every call it sees: in-process calls must pass through it too. */
const seen: string[] = [];
const auditPlugin = definePlugin({
  id: "audit-hook",
  // Listed here and nowhere else: `api.audit.echo` is typed from this declaration.
  endpoints: [
    defineEndpoint({
      method: "GET",
      path: "/audit/echo/{name}",
      operationId: "audit.echo",
      auth: "none",
      handler: ({ params }) => json({ name: params.name }),
    }),
  ],
  hooks: {
    before: (ctx: HookContext) => void seen.push(`${ctx.endpoint.operationId} ${ctx.principal?.kind ?? "anonymous"}`),
  },
});

let instance: TestInstance<[typeof auditPlugin]>;
let seed: Awaited<ReturnType<typeof seedOrganization>>;
let issueId: string;

beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false, plugins: [auditPlugin] as const });
  seed = await seedOrganization(instance.faultline, "acme");
  const captured = (await captureFor(instance.faultline, { id: seed.project.id, organizationId: seed.organization.id })(
    errorEvent(),
  )) as unknown;
  const [issue] = await instance.faultline.api.issues.list(
    { params: { organization_id_or_slug: "acme" } },
    { token: seed.allScopesToken },
  );
  expect(captured).toBeDefined();
  issueId = issue?.id as string;
});
afterAll(() => instance?.close());

describe("the typed in-process API", () => {
  it("is typed from the endpoint definitions: inputs and outputs inferred", () => {
    const { api } = instance.faultline;
    type UpdateInput = Parameters<typeof api.issues.update>[0];
    expectTypeOf<UpdateInput["params"]>().toEqualTypeOf<{
      organization_id_or_slug: string | number;
      issue_id: string | number;
    }>();
    expectTypeOf<NonNullable<UpdateInput["body"]>["status"]>().toEqualTypeOf<
      "resolved" | "resolvedInNextRelease" | "unresolved" | "ignored" | "muted" | undefined
    >();
    expectTypeOf<Awaited<ReturnType<typeof api.issues.update>>>().toHaveProperty("shortId");
    expectTypeOf<Awaited<ReturnType<typeof api.issues.list>>>().items.toHaveProperty("title");
    // Admin operations of the plugins keep their own signature where the names meet.
    expectTypeOf(api.projects.create).parameter(0).toHaveProperty("organization");
  });

  it("types and calls a host plugin's endpoint from its declaration alone", async () => {
    const reply = await instance.faultline.api.audit.echo({ params: { name: "x" } });
    expectTypeOf(reply).toEqualTypeOf<{ name: string }>();
    expect(reply).toEqual({ name: "x" });
  });

  it("updates an issue as an explicit principal, through validation, scopes and hooks", async () => {
    seen.length = 0;
    const principal = { userId: Number(seed.owner.id), scopes: ["event:write"] };
    const issue = await instance.faultline.api.issues.update(
      { params: { organization_id_or_slug: "acme", issue_id: issueId }, body: { status: "resolved" } },
      { principal },
    );
    expect(issue.status).toBe("resolved");
    expect(seen).toEqual(["issues.update host"]);
  });

  it("rejects with the same ApiError as HTTP: 400 on invalid input, 403 without the scope, 401 without a principal", async () => {
    const params = { organization_id_or_slug: "acme", issue_id: issueId };
    const principal = { userId: Number(seed.owner.id), scopes: ["event:read"] };
    const invalid = instance.faultline.api.issues.update(
      { params, body: { status: "bogus" as "resolved" } },
      { principal: { ...principal, scopes: ["event:write"] } },
    );
    await expect(invalid).rejects.toMatchObject({ status: 400, extra: { errors: { status: expect.any(Array) } } });
    await expect(
      instance.faultline.api.issues.update({ params, body: { status: "unresolved" } }, { principal }),
    ).rejects.toMatchObject({
      status: 403,
      extra: { requiredScopes: ["event:write"] },
    });
    await expect(instance.faultline.api.issues.get({ params })).rejects.toBeInstanceOf(ApiError);
    await expect(instance.faultline.api.issues.get({ params })).rejects.toMatchObject({ status: 401 });
  });

  it("keeps organizations apart: another organization's issue is a 404", async () => {
    await seedOrganization(instance.faultline, "other");
    const other = await instance.faultline.api.users.get("other-owner");
    const call = instance.faultline.api.issues.get(
      { params: { organization_id_or_slug: "acme", issue_id: issueId } },
      { principal: { userId: Number(other?.id), scopes: ["event:read"] } },
    );
    await expect(call).rejects.toMatchObject({ status: 404 });
  });

  it("call() answers status, headers and body, with a token as the principal", async () => {
    const result = await instance.faultline.call(
      "issues.list",
      { params: { organization_id_or_slug: "acme" }, query: { limit: 1, query: "" } },
      { token: seed.allScopesToken },
    );
    expect(result.status).toBe(200);
    expect(result.headers.get("link")).toContain("/api/0/organizations/acme/issues/");
    expect(result.body).toHaveLength(1);
    await expect(instance.faultline.call("no.such")).rejects.toThrow('Unknown operation "no.such"');
  });

  it("a principal cannot be smuggled over HTTP", async () => {
    const response = await instance.faultline.handler(
      new Request(`http://localhost/api/0/organizations/acme/issues/${issueId}/`, { headers: { "X-Principal": "{}" } }),
    );
    expect(response.status).toBe(401);
  });

  // Typed too: the types come from the same `endpoints` lists (test/unit/api-types.test.ts).
  it("offers every route as api.<area>.<operation>", () => {
    const api = instance.faultline.api as unknown as Record<string, Record<string, unknown>>;
    for (const { endpoint } of instance.faultline.container.resolve(RouteTable)) {
      const [area, operation] = apiNameOf(endpoint.operationId) as [string, string];
      expect(typeof api[area]?.[operation], endpoint.operationId).toBe("function");
    }
  });
});
