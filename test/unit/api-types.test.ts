// The types of `faultline.api`, computed from the plugins' own `endpoints` (no list of operations
// to keep). Most checks here are compile-time: `npx tsc --noEmit` fails when one does not hold.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineEndpoint, definePlugin, type FaultlineApi, json } from "../../src/index.js";
import { apiNameOf, type CallOptions } from "../../src/http/in-process.js";
import type { IssueDetail } from "../../src/plugins/issues/issue/serialize.js";
import { legacyIssueEndpoints } from "../../src/plugins/issues/legacy/routes.js";
import type { FirstPartyEndpoints, firstPartyPlugins } from "../../src/plugins/index.js";

type Api = FaultlineApi;
type IssueParams = { organization_id_or_slug: string | number; issue_id: string | number };

/** A host plugin: one endpoint in an area of its own, one in a first-party area, and an admin operation. */
const acmePing = defineEndpoint({
  method: "GET",
  path: "/acme/ping/{name}",
  operationId: "acme.ping",
  auth: "none",
  query: z.object({ loud: z.coerce.boolean().optional() }),
  handler: ({ params }) => json({ pong: params.name }),
});
const acmeIssueSummary = defineEndpoint({
  method: "GET",
  path: "/acme/issues/{issue_id}/summary",
  operationId: "issues.acmeSummary",
  auth: "none",
  handler: () => json({ summary: "" }),
});
const acmeEcho = defineEndpoint({
  method: "POST",
  path: "/acme/echo",
  operationId: "acme.echo",
  auth: "none",
  body: z.object({ text: z.string() }),
  handler: ({ body }) => json({ text: body.text }),
});
const acmePlugin = definePlugin({
  id: "acme",
  endpoints: [acmePing, acmeIssueSummary, acmeEcho],
  // Takes the name `acme.echo`: at run time the admin operation wins over the endpoint.
  api: () => ({ acme: { echo: (text: string) => text } }),
});
type HostApi = FaultlineApi<[typeof acmePlugin]>;

/** The API type given explicitly, as before endpoints were typed: still accepted, its endpoints untyped. */
const explicitPlugin = definePlugin<{ explicit: { hello(): string } }>({
  id: "explicit",
  endpoints: [acmePing],
  api: () => ({ explicit: { hello: () => "hello" } }),
});

describe("the in-process API's types, from the plugins' endpoints", () => {
  it("keeps a first-party operation's input and output exact", () => {
    expectTypeOf<Parameters<Api["issues"]["get"]>>().toEqualTypeOf<
      [input: { params: IssueParams }, options?: CallOptions]
    >();
    expectTypeOf<Awaited<ReturnType<Api["issues"]["get"]>>>().toEqualTypeOf<IssueDetail>();
    expectTypeOf<Api["issues"]["get"]>().toBeCallableWith({ params: { organization_id_or_slug: "acme", issue_id: 1 } });
    // @ts-expect-error a parameter the path does not have
    expectTypeOf<Api["issues"]["get"]>().toBeCallableWith({ params: { organization_id_or_slug: "acme", issueId: 1 } });
    // @ts-expect-error the path's parameters are required
    expectTypeOf<Api["issues"]["get"]>().toBeCallableWith({});
    const notAStatus = {
      params: { organization_id_or_slug: "acme", issue_id: 1 },
      body: { status: "closed" as const },
    };
    // @ts-expect-error not a status
    expectTypeOf<Api["issues"]["update"]>().toBeCallableWith(notAStatus);
    // A dotted operation id: `scim.users.list` is `api.scim.usersList`.
    expectTypeOf<Api["scim"]>().toHaveProperty("usersList");
    // The legacy twins, whose operation ids are computed (`issues.get` → `issues.legacyGet`).
    expectTypeOf<Awaited<ReturnType<Api["issues"]["legacyGet"]>>>().toEqualTypeOf<IssueDetail>();
  });

  it("lets a plugin's own API win where a name is both (as `extend` does at run time)", () => {
    expectTypeOf<Api["projects"]["create"]>().parameter(0).toHaveProperty("organization");
    expectTypeOf<HostApi["acme"]["echo"]>().toEqualTypeOf<(text: string) => string>();
  });

  it("types a host plugin's endpoints with nothing to register but its `endpoints`", () => {
    expectTypeOf<HostApi["acme"]["ping"]>().toEqualTypeOf<
      (
        input: { params: { name: string | number }; query?: { loud?: unknown } },
        options?: CallOptions,
      ) => Promise<{ pong: string }>
    >();
    // In a first-party area, beside the first-party operations.
    expectTypeOf<HostApi["issues"]["acmeSummary"]>().returns.resolves.toEqualTypeOf<{ summary: string }>();
    expectTypeOf<HostApi["issues"]["get"]>().toEqualTypeOf<Api["issues"]["get"]>();
    // Not in an instance without that plugin.
    expectTypeOf<Api>().not.toHaveProperty("acme");
    // The names the types give are the ones `extend` gives at run time.
    expect((acmePlugin.endpoints ?? []).map((endpoint) => apiNameOf(endpoint.operationId))).toEqual([
      ["acme", "ping"],
      ["issues", "acmeSummary"],
      ["acme", "echo"],
    ]);
  });

  it("still accepts the API type given explicitly, the endpoints then untyped", () => {
    expectTypeOf<FaultlineApi<[typeof explicitPlugin]>["explicit"]>().toEqualTypeOf<{ hello(): string }>();
    expectTypeOf<FaultlineApi<[typeof explicitPlugin]>>().not.toHaveProperty("acme");
    expect(explicitPlugin.endpoints).toEqual([acmePing]);
  });

  it("has every first-party endpoint under its literal operation id (none widened to a plain string)", () => {
    type Declared = NonNullable<(typeof firstPartyPlugins)[number]["endpoints"]>[number];
    expectTypeOf<string extends Declared["operationId"] ? "widened" : "literal">().toEqualTypeOf<"literal">();
    expectTypeOf<keyof FirstPartyEndpoints>().toEqualTypeOf<Declared["operationId"]>();
    // The legacy twins' ids are computed, in the types as at run time: both must say the same.
    const legacyIds = legacyIssueEndpoints.map((endpoint) => endpoint.operationId);
    const expected = [
      "issues.legacyGet",
      "issues.legacyUpdate",
      "issues.legacyDelete",
      "issues.legacyEvents",
      "issues.legacyEvent",
      "issues.legacyTags",
      "issues.legacyTag",
      "issues.legacyTagValues",
      "issues.legacyHashes",
    ] as const;
    expectTypeOf<(typeof legacyIds)[number]>().toEqualTypeOf<(typeof expected)[number]>();
    expect(legacyIds).toEqual(expected);
  });
});
