import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { SCOPES, tokens } from "../../src/index.js";
import type { TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "./events.js";
import { seedOrganization } from "./seed.js";
import { bearer } from "./server.js";

/** A public address literal: accepted without DNS, never contacted (the suites run no worker). */
const PUBLIC_URL = "https://93.184.215.14/hooks/faultline";
const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const SCIM_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";

/**
 * An organization with one of every kind of resource the API addresses by id, and a credential
 * of every kind, seeded through the real HTTP API where there is one (ingest, comments, hooks,
 * rules, the OAuth exchange, SCIM). Two of these make the cross-organization suite; one (or two)
 * the fuzz suite.
 */
export interface Tenant {
  slug: string;
  /**
   * Valid values of the OpenAPI path parameters, by parameter name, in each accepted
   * representation (slug, then numeric id). Suites fill any operation's path from this table;
   * a parameter missing here fails them loudly, so a new endpoint's parameter gets added.
   */
  params: Record<string, string[]>;
  /** Values for request-body fields that name this tenant's data (a project, an issue, an app…). */
  bodyValues: Record<string, unknown>;
  credentials: {
    /** A user token with every scope, of the owner, who is a member of this organization only. */
    user: string;
    /** An organization token with every scope. */
    organization: string;
    /** An installation token of an internal app with every scope, from the OAuth exchange. */
    installation: string;
    scim: string;
    /** The public DSN key of the project in `params.project_id`. */
    dsnKey: string;
    app: { clientId: string; clientSecret: string };
  };
  eventIds: string[];
  /** Strings only this tenant's data contains (uuids, hex ids, slugs, names): another tenant's reads must never show one. */
  markers: string[];
}

/**
 * Path parameters that name nothing of an organization's: the SCIM discovery documents are the
 * same everywhere.
 */
export const GLOBAL_PARAMS: Record<string, string> = {
  name: "User",
  /** A tag key every event carries: the issue in the path is what names the organization's data. */
  key: "level",
  schema_id: SCIM_USER,
  /** Inbound filter ids are Sentry's, the same for every project: the project in the path names the data. */
  filter_id: "localhost",
  /**
   * An email's one-click unsubscribe token is a capability (signed by the database's key, naming its
   * user itself; tested in notifications.test.ts): the path names no organization to cross.
   */
  token: "not-a-signed-token",
  /**
   * A share id is a capability too (128 random bits naming one public issue, read without a
   * credential; tested in issue-share.test.ts): the path names no organization to cross.
   */
  share_id: "0123456789abcdef0123456789abcdef",
};

/** Valid values for body fields whose schema in the document is looser than the endpoint's check. */
export const VALID_BODY_FIELDS: Record<string, unknown> = {
  url: PUBLIC_URL,
  events: ["event.created"],
  /** A user report's (`POST …/user-feedback/`): an event id, an email address, some text. */
  event_id: "0123456789abcdef0123456789abcdef",
  email: "reporter@example.com",
  comments: "It broke",
};

/**
 * Body fields that, in these operations, name the resource being created or renamed in the
 * caller's own organization rather than referring to existing data: a project's new `slug` is
 * not a reference to the app whose slug `bodyValues.slug` holds (apps are installed by slug).
 * Slugs are unique per organization, so a project of B's may well be called like something of
 * A's; filling the field with A's value would only create or rename B's own project (changing
 * B's data and each answer's ids), which says nothing about cross-organization access. That
 * creating or renaming with another organization's slug leaves it untouched is tested directly
 * (test/integration/projects-and-keys.test.ts).
 */
const OWN_NAME_FIELDS: Record<string, readonly string[]> = {
  "projects.createForTeam": ["slug"],
  "projects.update": ["slug"],
};

/** The tenant's body values that are references to its data in this operation's body. */
export function bodyReferences(operationId: string, values: Record<string, unknown>): Record<string, unknown> {
  const own = OWN_NAME_FIELDS[operationId] ?? [];
  return Object.fromEntries(Object.entries(values).filter(([name]) => !own.includes(name)));
}

const newEventId = () => randomUUID().replaceAll("-", "");

export async function seedTenant(instance: TestInstance, serverUrl: string, slug: string): Promise<Tenant> {
  const { faultline } = instance;
  const { api } = faultline;
  const seeded = await seedOrganization(faultline, slug);
  await api.organizations.update(slug, { samlConfigured: true });
  const user = seeded.allScopesToken;
  const project = await api.projects.create({
    organization: slug,
    slug: `${slug}-api`,
    platform: "node",
    features: ["servicehooks"],
  });
  const dsnKey = project.keys[0]?.public as string;
  const keyId = project.keys[0]?.id as string;
  const team = await api.teams.create({ organization: slug, slug: `${slug}-team`, name: `${slug} team` });
  const organizationToken = (await api.tokens.create({ organization: slug, scopes: [...SCOPES] })).token;

  async function call(
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
  ): Promise<Record<string, unknown> & { id?: string }> {
    const response = await fetch(`${serverUrl}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`seeding ${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : {};
  }
  const projectPath = `/api/0/projects/${slug}/${project.slug}`;
  const organizationPath = `/api/0/organizations/${slug}`;

  // A hook first, so that the event below queues a delivery.
  const hook = await call("POST", `${projectPath}/hooks/`, user, { url: PUBLIC_URL, events: ["event.created"] });

  const eventIds = [newEventId(), newEventId()];
  for (const [index, eventId] of eventIds.entries()) {
    const envelope = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({ ...errorEvent({ message: `${slug} failure ${index}` }), event_id: eventId }),
    ].join("\n");
    const response = await fetch(`${serverUrl}/api/${project.id}/envelope/?sentry_key=${dsnKey}`, {
      method: "POST",
      body: envelope,
    });
    if (response.status !== 200) throw new Error(`seeding ingest: ${response.status} ${await response.text()}`);
  }
  // Queued ingest groups acknowledged events in the background; the suites run no worker.
  await faultline.worker.runDue("ingest.digest");
  const feedback = await seedFeedback(serverUrl, project, dsnKey, eventIds[0] as string, slug, user);
  const issues = (await (
    await fetch(`${serverUrl}${organizationPath}/issues/?query=`, { headers: bearer(user) })
  ).json()) as Array<{ id: string; shortId: string }>;
  const issueId = issues[0]?.id as string;
  const deliveries = (await (
    await fetch(`${serverUrl}${organizationPath}/deliveries/`, { headers: bearer(user) })
  ).json()) as Array<{ id: string }>;
  const deliveryId = deliveries[0]?.id;
  if (!issueId || !deliveryId)
    throw new Error(`seeding ${slug}: no issue (${issues.length}) or delivery (${deliveries.length})`);

  const digest = () => faultline.worker.runDue("ingest.digest");
  const tombstoneId = await seedTombstone(serverUrl, digest, {
    slug,
    projectId: project.id,
    projectSlug: project.slug,
    dsnKey,
    user,
  });

  const comment = await call("POST", `${organizationPath}/issues/${issueId}/comments/`, user, {
    text: `a comment in ${slug}`,
  });
  const alertRule = await call("POST", `${organizationPath}/alert-rules/`, user, {
    name: `${slug} errors`,
    projects: [project.slug],
    timeWindow: 5,
    triggers: [{ label: "critical", alertThreshold: 10 }],
  });
  const issueRule = await call("POST", `${projectPath}/rules/`, user, {
    name: `${slug} new issues`,
    conditions: [{ id: "first_seen_event" }],
    frequency: 5,
  });
  const release = await call("POST", `${organizationPath}/releases/`, user, {
    version: `${slug}@1.0.0`,
    projects: [project.slug],
  });
  await call("POST", `${organizationPath}/releases/${slug}@1.0.0/deploys/`, user, { environment: "production" });
  const monitor = await call("POST", `${organizationPath}/monitors/`, user, {
    name: `${slug} job`,
    project: project.slug,
    config: { schedule_type: "crontab", schedule: "0 * * * *" },
  });
  await call("POST", `/api/${project.id}/cron/${monitor.slug}/${dsnKey}/?status=ok`, undefined);
  const apiToken = await call("POST", "/api/0/api-tokens/", user, { name: `${slug} spare`, scopes: ["org:read"] });

  const app = await api.apps.create({
    organization: slug,
    name: `${slug} bot`,
    slug: `${slug}-bot`,
    isInternal: true,
    scopes: [...SCOPES],
  });
  const installation = app.installation as { uuid: string; code?: string };
  const exchanged = await call("POST", `/api/0/svc-app-installations/${installation.uuid}/authorizations/`, undefined, {
    grant_type: "authorization_code",
    code: installation.code,
    client_id: app.clientId,
    client_secret: app.clientSecret,
  });
  const installationToken = exchanged.token as string;
  const link = await call(
    "POST",
    `/api/0/svc-app-installations/${installation.uuid}/external-issues/`,
    installationToken,
    {
      issueId: Number(issueId),
      webUrl: `https://tracker.test/${slug}-1`,
      project: project.slug,
      identifier: `${slug.toUpperCase()}-1`,
    },
  );

  const scim = (await api.scim.enable(slug)).token;
  const scimCall = (path: string, body: unknown) =>
    fetch(`${serverUrl}${organizationPath}/scim/v2/${path}`, {
      method: "POST",
      headers: { ...bearer(scim), "content-type": "application/scim+json" },
      body: JSON.stringify(body),
    }).then(async (response) => {
      if (response.status !== 201) throw new Error(`seeding SCIM ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    });
  const scimUser = await scimCall("Users", {
    schemas: [SCIM_USER],
    userName: `pat@${slug}.test`,
    name: { givenName: "Pat", familyName: slug },
  });
  const scimGroup = await scimCall("Groups", {
    schemas: [SCIM_GROUP],
    displayName: `${slug} platform`,
    members: [{ value: scimUser.id }],
  });

  const params: Record<string, string[]> = {
    organization_id_or_slug: [slug, String(seeded.organization.id)],
    project_id_or_slug: [project.slug, String(project.id)],
    project_id: [String(project.id)],
    team_id_or_slug: [team.slug, String(team.id)],
    /** Sentry names a DSN key by its public key; the numeric id works too. */
    key_id: [dsnKey, keyId],
    issue_id: [issueId],
    /** Not a path parameter: what `?query=` takes for a short-id lookup. */
    short_id: [issues[0]?.shortId as string],
    comment_id: [String(comment.id)],
    event_id: [eventIds[0] as string],
    hook_id: [String(hook.id)],
    delivery_id: [String(deliveryId)],
    alert_rule_id: [String(alertRule.id)],
    rule_id: [String(issueRule.id)],
    token_id: [String(apiToken.id)],
    app_slug: [app.slug],
    uuid: [installation.uuid],
    link_id: [String(link.id)],
    user_id: [scimUser.id],
    group_id: [scimGroup.id],
    version: [release.version as string],
    tombstone_id: [tombstoneId],
    monitor_id_or_slug: [monitor.slug as string, monitor.id as string],
    /** The HTTP check-in's path: the monitor, and the project's DSN key that authenticates it. */
    monitor_slug: [monitor.slug as string],
    sentry_key: [dsnKey],
    feedback_id: [feedback.id],
    attachment_id: [feedback.attachmentId],
  };
  return {
    slug,
    params,
    bodyValues: {
      projects: [project.slug],
      project: project.slug,
      issueId: Number(issueId),
      slug: app.slug,
      organization: slug,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      assignedTo: `user:${seeded.owner.id}`,
      members: [{ value: scimUser.id }],
    },
    credentials: {
      user,
      organization: organizationToken,
      installation: installationToken,
      scim,
      dsnKey,
      app: { clientId: app.clientId, clientSecret: app.clientSecret },
    },
    eventIds,
    markers: [
      ...Object.values(params)
        .flat()
        // Bare numbers are in everyone's data; the bare slug is in longer words (the quoted one is below).
        .filter((value) => !/^\d+$/.test(value) && value !== slug),
      `"${slug}"`,
      `${slug}-owner`,
      `pat@${slug}.test`,
      `a comment in ${slug}`,
      `${slug} failure`,
      `feedback from ${slug}`,
      app.clientId,
    ],
  };
}

/** An issue of its own fingerprint, discarded (docs/issues.md, "Discard"): the id of its tombstone. */
async function seedTombstone(
  serverUrl: string,
  digest: () => Promise<unknown>,
  tenant: { slug: string; projectId: string | number; projectSlug: string; dsnKey: string; user: string },
): Promise<string> {
  const eventId = newEventId();
  const event = { ...errorEvent(), fingerprint: [`${tenant.slug} discarded`], event_id: eventId };
  const sent = await fetch(`${serverUrl}/api/${tenant.projectId}/store/?sentry_key=${tenant.dsnKey}`, {
    method: "POST",
    body: JSON.stringify(event),
  });
  if (sent.status !== 200) throw new Error(`seeding a discarded event: ${sent.status} ${await sent.text()}`);
  await digest();
  const projectPath = `${serverUrl}/api/0/projects/${tenant.slug}/${tenant.projectSlug}`;
  const stored = await fetch(`${projectPath}/events/${eventId}/`, { headers: bearer(tenant.user) });
  const { groupID } = (await stored.json()) as { groupID: string };
  const discard = await fetch(`${serverUrl}/api/0/organizations/${tenant.slug}/issues/${groupID}/`, {
    method: "PUT",
    headers: { ...bearer(tenant.user), "content-type": "application/json" },
    body: JSON.stringify({ discard: true }),
  });
  if (discard.status !== 204) throw new Error(`seeding a tombstone: ${discard.status} ${await discard.text()}`);
  const listed = await fetch(`${projectPath}/tombstones/`, { headers: bearer(tenant.user) });
  return ((await listed.json()) as Array<{ id: string }>)[0]?.id as string;
}

/** A widget feedback on the tenant's first event, with a screenshot, sent as the JS SDK sends it. */
async function seedFeedback(
  serverUrl: string,
  project: { id: string; slug: string },
  dsnKey: string,
  eventId: string,
  slug: string,
  token: string,
): Promise<{ id: string; attachmentId: string }> {
  const feedback = JSON.stringify({
    event_id: newEventId(),
    contexts: { feedback: { message: `feedback from ${slug}`, associated_event_id: eventId } },
  });
  const envelope = [
    JSON.stringify({ event_id: newEventId() }),
    '{"type":"feedback"}',
    feedback,
    JSON.stringify({ type: "attachment", filename: "screenshot.png", content_type: "image/png", length: 4 }),
    "PNG!",
  ].join("\n");
  const sent = await fetch(`${serverUrl}/api/${project.id}/envelope/?sentry_key=${dsnKey}`, {
    method: "POST",
    body: envelope,
  });
  if (sent.status !== 200) throw new Error(`seeding feedback: ${sent.status} ${await sent.text()}`);
  const listed = await fetch(`${serverUrl}/api/0/projects/${slug}/${project.slug}/user-feedback/`, {
    headers: bearer(token),
  });
  const [kept] = (await listed.json()) as Array<{ id: string; attachments: Array<{ id: string }> }>;
  if (!kept?.attachments[0]) throw new Error(`seeding feedback: not kept (${listed.status})`);
  return { id: kept.id, attachmentId: kept.attachments[0].id };
}

/** Every row of every table of the instance's schema, as JSON text, sorted: to prove nothing changed. */
/** Usage statistics count refused requests too (the `invalid` and `rate_limited` outcomes): they change by design. */
const STATISTICS_TABLES = new Set(["ingest_outcomes"]);

export async function snapshotTables(instance: TestInstance): Promise<Record<string, string[]>> {
  const db = instance.faultline.container.resolve(tokens.Db);
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = ${instance.schema} AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  const snapshot: Record<string, string[]> = {};
  for (const { table_name: table } of tables.rows) {
    if (STATISTICS_TABLES.has(table)) continue;
    const rows = await sql<{
      row: unknown;
    }>`SELECT to_jsonb(t) AS row FROM ${sql.table(`${instance.schema}.${table}`)} t`.execute(db);
    // Drivers hand jsonb back parsed (pg) or as text; either way one canonical string per row.
    snapshot[table] = rows.rows.map(({ row }) => (typeof row === "string" ? row : JSON.stringify(row))).sort();
  }
  return snapshot;
}
