import { randomUUID } from "node:crypto";
import * as sentry from "@sentry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { loadSentrySchema, responseShape, schemaViolations } from "../helpers/sentry-api-schema.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";
import { seedTenant, type Tenant } from "../helpers/tenant.js";

/**
 * Sentry's generated Web-API client (`@sentry/api`, built from Sentry's published OpenAPI
 * schema), unmodified, against a real Faultline server: every operation Faultline implements
 * succeeds, and each answer has every field that schema marks required, with its JSON type.
 *
 * The package declares Node >= 22 but uses nothing newer than Node 20's fetch: it runs here.
 */

/**
 * Where Faultline answers differently from the schema, each with its reason; a violation is
 * excused only when its path matches and it is the kind named.
 */
const EXCUSED: Array<{ path: RegExp; problem: RegExp; why: string }> = [
  {
    path: /^\$(\[\d+\]|\.group)?\.assignedTo$/,
    problem: /^expected object, got string$/,
    why: "the seed's contract wins here (api.md §3.1): the assignee's username or team name; Sentry's object is `assignee`",
  },
  // The generated schema types these non-null, but Sentry's own serializers send null: shareId
  // for an issue never shared, inbox and owners unless `expand`ed, a frame's or breadcrumb's
  // missing fields, a user without an id.
  {
    path: /^\$(\[\d+\]|\.group)?\.(shareId|inbox|owners|assignedTo)$/,
    problem: /^expected (string|object), got null$/,
    why: "Sentry sends null",
  },
  {
    path: /^\$\.entries\[\d+\]\.data\.values\[\d+\]\.(stacktrace\.frames\[\d+\]\.(function|module|filename|lineNo)|category|value|type)$/,
    problem: /^expected (string|number), got null$/,
    why: "Sentry sends null",
  },
  { path: /^\$\.user\.id$/, problem: /^expected string, got null$/, why: "Sentry sends null" },
  {
    path: /^\$(\[\d+\])?\.createdBy$/,
    problem: /^expected object, got null$/,
    why: "Sentry sends null for a rule without a recorded creator",
  },
  {
    path: /^\$(\[\d+\])?\.(schema|metadata)$/,
    problem: /^expected string, got (object|null)$/,
    why: "an app's UI schema and metadata are objects in Sentry's answers (the generated type says string); null when the app has no UI schema",
  },
  {
    path: /^\$(\.Resources\[\d+\])?\.(name\.familyName|name|emails)$/,
    problem: /^required field missing$/,
    why: "SCIM answers what the identity provider sent (RFC 7643); Sentry's `N/A` placeholders are not invented",
  },
  {
    path: /^\$(\[\d+\])?\.secret$/,
    problem: /^required field missing$/,
    why: "decided here (platform.md): a service hook's secret is shown once, at creation, never in later reads",
  },
];

type SdkFunction = (
  options: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

interface Call {
  /** The `@sentry/api` function. */
  operation: keyof typeof sentry;
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  token?: "user" | "scim" | "installation";
  /** The success status Faultline answers with (and whose schema is checked). */
  status: number;
}

const excused = (path: string, problem: string) =>
  EXCUSED.some((excuse) => excuse.path.test(path) && excuse.problem.test(problem));

describe("@sentry/api, Sentry's generated client, against a Faultline host", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let tenant: Tenant;
  const param = (name: string) => tenant.params[name]?.[0] as string;

  async function run(call: Call) {
    const fn = sentry[call.operation] as unknown as SdkFunction;
    const token = tenant.credentials[call.token ?? "user"];
    const result = await fn({
      baseUrl: server.url,
      headers: { Authorization: `Bearer ${token}` },
      path: call.path ?? {},
      query: call.query,
      body: call.body,
    });
    return result;
  }

  async function check(call: Call) {
    const { response, data, error } = await run(call);
    expect(error, `${call.operation}: ${JSON.stringify(error)}`).toBeUndefined();
    expect(response.status, call.operation).toBe(call.status);
    const shape = responseShape(call.operation, call.status);
    if (shape) expect(schemaViolations(data, shape, excused), call.operation).toEqual([]);
    return data;
  }

  beforeAll(async () => {
    loadSentrySchema();
    instance = await createTestInstance({ worker: false });
    server = await serveFaultline(instance.faultline);
    tenant = await seedTenant(instance, server.url, "acme");
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const org = () => ({ organization_id_or_slug: param("organization_id_or_slug") });
  const project = () => ({ ...org(), project_id_or_slug: param("project_id_or_slug") });
  const issue = () => ({ ...org(), issue_id: param("issue_id") });

  it("organizations and projects: retrieve, list, keys", async () => {
    await check({ operation: "retrieveAnOrganization", path: org(), status: 200 });
    await check({ operation: "listAnOrganization_sProjects", path: org(), status: 200 });
    await check({ operation: "retrieveAProject", path: project(), status: 200 });
    const keys = (await check({ operation: "listAProject_sClientKeys", path: project(), status: 200 })) as Array<{
      dsn: { public: string };
    }>;
    expect(keys[0]?.dsn.public).toMatch(/^http:\/\/[0-9a-f]+@127\.0\.0\.1:\d+\/\d+$/);
  });

  it("what sentry-cli needs: organizations, teams, members, project create/update/delete, client keys, project bulk mutate", async () => {
    const organizations = (await check({ operation: "listYourOrganizations", status: 200 })) as Array<{ slug: string }>;
    expect(organizations.map((o) => o.slug)).toEqual(["acme"]);
    await check({ operation: "listAnOrganization_sTeams", path: org(), status: 200 });
    await check({ operation: "listAnOrganization_sMembers", path: org(), status: 200 });
    const created = (await check({
      operation: "createANewProject",
      path: { ...org(), team_id_or_slug: param("team_id_or_slug") },
      body: { name: "Mobile App", platform: "javascript" },
      status: 201,
    })) as { slug: string };
    expect(created.slug).toBe("mobile-app");
    const mobile = { ...org(), project_id_or_slug: created.slug };
    await check({ operation: "updateAProject", path: mobile, body: { name: "Mobile" }, status: 200 });
    const key = (await check({
      operation: "createANewClientKey",
      path: mobile,
      body: { name: "CI", rateLimit: { window: 60, count: 100 } },
      status: 201,
    })) as { id: string; public: string };
    await check({ operation: "retrieveAClientKey", path: { ...mobile, key_id: key.public }, status: 200 });
    await check({
      operation: "updateAClientKey",
      path: { ...mobile, key_id: key.public },
      body: { rateLimit: null },
      status: 200,
    });
    await check({ operation: "deleteAClientKey", path: { ...mobile, key_id: key.public }, status: 204 });
    await check({
      operation: "bulkMutateAListOfIssues",
      path: project(),
      query: { id: [Number(param("issue_id"))] },
      body: { status: "unresolved" },
      status: 200,
    });
    await check({ operation: "deleteAProject", path: mobile, status: 204 });
  });

  it("issues: list (org and project), retrieve, update, hashes, bulk mutate", async () => {
    const list = (await check({
      operation: "listAnOrganization_sIssues",
      path: org(),
      query: { query: "", statsPeriod: "14d", groupStatsPeriod: "24h" },
      status: 200,
    })) as unknown[];
    expect(list.length).toBeGreaterThan(0);
    await check({ operation: "listAProject_sIssues", path: project(), query: { statsPeriod: "24h" }, status: 200 });
    await check({ operation: "retrieveAnIssue", path: issue(), status: 200 });
    // Sentry's spellings: muted is ignored, snoozeDuration is ignoreDuration.
    const muted = (await check({
      operation: "updateAnIssue",
      path: issue(),
      body: { status: "muted", snoozeDuration: 30 },
      status: 200,
    })) as {
      status: string;
      statusDetails: { ignoreDuration?: number };
      permalink: string;
    };
    expect(muted).toMatchObject({ status: "ignored", statusDetails: { ignoreDuration: 30 } });
    // No template configured: the issue's absolute API URL on the request's origin.
    expect(muted.permalink).toBe(`${server.url}/api/0/organizations/acme/issues/${param("issue_id")}/`);
    await check({ operation: "listAnIssue_sHashes", path: issue(), status: 200 });
    await check({
      operation: "bulkMutateAnOrganization_sIssues",
      path: org(),
      query: { id: [Number(param("issue_id"))] },
      body: { status: "unresolved" },
      status: 200,
    });
    await check({ operation: "retrieveCustomIntegrationIssueLinksForTheGivenSentryIssue", path: issue(), status: 200 });
  });

  it("events: retrieve one of a project (with its release), list the project's events", async () => {
    const event = (await check({
      operation: "retrieveAnEventForAProject",
      path: { ...project(), event_id: tenant.eventIds[0] as string },
      status: 200,
    })) as { groupID: string };
    expect(event.groupID).toBe(param("issue_id"));

    // An event of the seeded release: its `release` is Sentry's release object.
    const eventId = crypto.randomUUID().replaceAll("-", "");
    const version = param("version");
    const envelope = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({
        ...errorEvent({ message: "released failure", release: version, fingerprint: ["released"] }),
        event_id: eventId,
      }),
    ].join("\n");
    const projectId = tenant.params.project_id_or_slug?.[1] as string;
    const sent = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${tenant.credentials.dsnKey}`, {
      method: "POST",
      body: envelope,
    });
    expect(sent.status).toBe(200);
    await digestQueued(instance.faultline);
    const released = (await check({
      operation: "retrieveAnEventForAProject",
      path: { ...project(), event_id: eventId },
      status: 200,
    })) as { groupID: string; release: { version: string; deployCount: number; projects: unknown[] } };
    expect(released.release).toMatchObject({ version, deployCount: 1, projects: [expect.anything()] });
    const listed = (await check({ operation: "listAProject_sErrorEvents", path: project(), status: 200 })) as Array<{
      eventID: string;
    }>;
    expect(listed.map((item) => item.eventID)).toContain(eventId);
    await check({ operation: "listAProject_sErrorEvents", path: project(), query: { full: true }, status: 200 });
    // Its issue's hash carries it as its full latest event.
    await check({ operation: "listAnIssue_sHashes", path: { ...org(), issue_id: released.groupID }, status: 200 });
  });

  it("an issue's events, tags and the short-id and event-id lookups", async () => {
    const events = (await check({
      operation: "listAnIssue_sEvents",
      path: issue(),
      query: { statsPeriod: "14d" },
      status: 200,
    })) as Array<{ eventID: string }>;
    expect(events.map((event) => event.eventID).sort()).toEqual([...tenant.eventIds].sort());
    await check({ operation: "listAnIssue_sEvents", path: issue(), query: { full: true }, status: 200 });
    for (const eventId of ["latest", "oldest", "recommended", tenant.eventIds[0] as string]) {
      const event = (await check({
        operation: "retrieveAnIssueEvent",
        path: { ...issue(), event_id: eventId },
        status: 200,
      })) as { groupID: string };
      expect(event.groupID).toBe(param("issue_id"));
    }
    const tag = (await check({ operation: "retrieveTagDetails", path: { ...issue(), key: "level" }, status: 200 })) as {
      totalValues: number;
    };
    expect(tag.totalValues).toBe(tenant.eventIds.length);
    await check({ operation: "listATag_sValuesForAnIssue", path: { ...issue(), key: "level" }, status: 200 });
    const resolved = (await check({
      operation: "resolveAShortId",
      path: { ...org(), issue_id: param("short_id") },
      status: 200,
    })) as { groupId: string };
    expect(resolved.groupId).toBe(param("issue_id"));
    const found = (await check({
      operation: "resolveAnEventId",
      path: { ...org(), event_id: tenant.eventIds[1] as string },
      status: 200,
    })) as { groupId: string };
    expect(found.groupId).toBe(param("issue_id"));
  });

  it("service hooks: register, list, retrieve, update, remove", async () => {
    const hook = (await check({
      operation: "registerANewServiceHook",
      path: project(),
      body: { url: "https://93.184.215.14/hooks/other", events: ["event.alert"] },
      status: 201,
    })) as { id: string };
    await check({ operation: "listAProject_sServiceHooks", path: project(), status: 200 });
    await check({ operation: "retrieveAServiceHook", path: { ...project(), hook_id: hook.id }, status: 200 });
    await check({
      operation: "updateAServiceHook",
      path: { ...project(), hook_id: hook.id },
      body: { url: "https://93.184.215.14/hooks/again", events: ["event.created"] },
      status: 200,
    });
    await check({ operation: "removeAServiceHook", path: { ...project(), hook_id: hook.id }, status: 204 });
  });

  it("alert rules: metric and issue rules, full cycle", async () => {
    const metric = (await check({
      operation: "deprecatedCreateAMetricAlertRuleForAnOrganization",
      path: org(),
      body: {
        name: "many errors",
        aggregate: "count()",
        query: "",
        timeWindow: 5,
        projects: [param("project_id_or_slug")],
        triggers: [{ label: "critical", alertThreshold: 5, actions: [] }],
      },
      status: 201,
    })) as { id: string };
    await check({ operation: "deprecatedListAnOrganization_sMetricAlertRules", path: org(), status: 200 });
    await check({
      operation: "deprecatedRetrieveAMetricAlertRuleForAnOrganization",
      path: { ...org(), alert_rule_id: metric.id },
      status: 200,
    });
    await check({
      operation: "deprecatedUpdateAMetricAlertRule",
      path: { ...org(), alert_rule_id: metric.id },
      body: {
        name: "more errors",
        aggregate: "count()",
        query: "",
        timeWindow: 10,
        projects: [param("project_id_or_slug")],
        triggers: [{ label: "critical", alertThreshold: 9, actions: [] }],
      },
      status: 200,
    });
    await check({
      operation: "deprecatedDeleteAMetricAlertRule",
      path: { ...org(), alert_rule_id: metric.id },
      status: 204,
    });

    const rule = (await check({
      operation: "deprecatedCreateAnIssueAlertRuleForAProject",
      path: project(),
      body: {
        name: "new issue",
        actionMatch: "any",
        frequency: 30,
        conditions: [{ id: "first_seen_event" }],
        actions: [],
      },
      status: 201,
    })) as { id: string };
    await check({ operation: "deprecatedListAProject_sIssueAlertRules", path: project(), status: 200 });
    await check({
      operation: "deprecatedRetrieveAnIssueAlertRuleForAProject",
      path: { ...project(), rule_id: rule.id },
      status: 200,
    });
    await check({
      operation: "deprecatedUpdateAnIssueAlertRule",
      path: { ...project(), rule_id: rule.id },
      body: {
        name: "new issue again",
        actionMatch: "any",
        frequency: 60,
        conditions: [{ id: "first_seen_event" }],
        actions: [],
      },
      status: 200,
    });
    await check({
      operation: "deprecatedDeleteAnIssueAlertRule",
      path: { ...project(), rule_id: rule.id },
      status: 204,
    });
  });

  it("integration platform: apps and installations under Sentry's own path words", async () => {
    await check({ operation: "retrieveTheCustomIntegrationsCreatedByAnOrganization", path: org(), status: 200 });
    await check({
      operation: "retrieveACustomIntegrationByIdOrSlug",
      path: { sentry_app_id_or_slug: param("app_slug") },
      status: 200,
    });
    await check({
      operation: "updateAnExistingCustomIntegration",
      path: { sentry_app_id_or_slug: param("app_slug") },
      body: { name: "acme bot 2" },
      status: 200,
    });
    await check({ operation: "listAnOrganization_sIntegrationPlatformInstallations", path: org(), status: 200 });
    const link = (await check({
      operation: "createOrUpdateAnExternalIssue",
      path: { uuid: param("uuid") },
      token: "installation",
      body: {
        issueId: Number(param("issue_id")),
        webUrl: "https://tracker.test/acme-2",
        project: "acme-api",
        identifier: "ACME-2",
      },
      status: 200,
    })) as { id: string };
    await check({
      operation: "deleteAnExternalIssue",
      path: { uuid: param("uuid"), external_issue_id: link.id },
      token: "installation",
      status: 204,
    });
  });

  it("SCIM: users and groups", async () => {
    await check({ operation: "listAnOrganization_sScimMembers", path: org(), token: "scim", status: 200 });
    const user = (await check({
      operation: "provisionANewOrganizationMember",
      path: org(),
      token: "scim",
      body: { userName: "sam@acme.test", sentryOrgRole: "admin" },
      status: 201,
    })) as { id: string; sentryOrgRole?: string };
    expect(user.sentryOrgRole).toBe("admin");
    await check({
      operation: "queryAnIndividualOrganizationMember",
      path: { ...org(), member_id: user.id },
      token: "scim",
      status: 200,
    });
    await check({
      operation: "updateAnOrganizationMember_sAttributes",
      path: { ...org(), member_id: user.id },
      token: "scim",
      body: {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", value: { active: true } }],
      },
      status: 200,
    });
    await check({ operation: "listAnOrganization_sPaginatedTeams", path: org(), token: "scim", status: 200 });
    const team = (await check({
      operation: "provisionANewTeam",
      path: org(),
      token: "scim",
      body: { displayName: "acme sre" },
      status: 201,
    })) as { id: string };
    await check({
      operation: "queryAnIndividualTeam",
      path: { ...org(), team_id_or_slug: team.id },
      token: "scim",
      status: 200,
    });
    await check({
      operation: "updateATeam_sAttributes",
      path: { ...org(), team_id_or_slug: team.id },
      token: "scim",
      body: {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "add", path: "members", value: [{ value: user.id }] }],
      },
      status: 200,
    });
    await check({
      operation: "deleteAnIndividualTeam",
      path: { ...org(), team_id_or_slug: team.id },
      token: "scim",
      status: 204,
    });
    await check({
      operation: "deleteAnOrganizationMemberViaScim",
      path: { ...org(), member_id: user.id },
      token: "scim",
      status: 204,
    });
  });

  it("issues: bulk mutate with merge, answered with Sentry's {merge: {parent, children}}", async () => {
    const projectId = tenant.params.project_id_or_slug?.[1] as string;
    const ids: string[] = [];
    for (const fingerprint of ["merge-a", "merge-b"]) {
      const eventId = randomUUID().replaceAll("-", "");
      const event = { message: fingerprint, fingerprint: [fingerprint], event_id: eventId };
      const envelope = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(event)].join("\n");
      const url = `${server.url}/api/${projectId}/envelope/?sentry_key=${tenant.credentials.dsnKey}`;
      expect((await fetch(url, { method: "POST", body: envelope })).status).toBe(200);
      await instance.faultline.worker.runDue("ingest.digest");
      const found = (await check({
        operation: "listAnOrganization_sIssues",
        path: org(),
        query: { query: fingerprint },
        status: 200,
      })) as Array<{ id: string }>;
      ids.push(found[0]?.id as string);
    }
    const merged = await check({
      operation: "bulkMutateAnOrganization_sIssues",
      path: org(),
      query: { id: ids.map(Number) },
      body: { merge: true },
      status: 200,
    });
    expect(merged).toEqual({ merge: { parent: ids[0], children: [ids[1]] } });
  });

  it("removal: an issue, the issues matching a filter, an app", async () => {
    await check({ operation: "removeAnIssue", path: issue(), status: 202 });
    await check({
      operation: "bulkRemoveAnOrganization_sIssues",
      path: org(),
      query: { query: "is:unresolved" },
      status: 204,
    });
    await check({
      operation: "deleteACustomIntegration",
      path: { sentry_app_id_or_slug: param("app_slug") },
      status: 204,
    });
  });
});
