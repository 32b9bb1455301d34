import { sql } from "kysely";
import { z } from "zod";
import { Db } from "../../../container/tokens.js";
import type { Database, StoredEvent } from "../../../db/schema.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { idString, isoDate } from "../../../http/format.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { serializeEvent } from "../events-api/serialize.js";
import { IssueRepositoryToken } from "../tokens.js";
import type { Kysely } from "kysely";

const EVENT_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/events/{event_id}/";
const eventNotFound = () => new ApiError(404, "Event not found");

/** 32 lowercase hex, from either the plain or the dashed UUID form; null for anything else. */
function normalizeEventId(value: string): string | null {
  const hex = value.replaceAll("-", "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

async function findEvent(db: Kysely<Database>, organizationId: number, projectId: number, rawId: string): Promise<StoredEvent> {
  const eventId = normalizeEventId(rawId);
  if (!eventId) throw eventNotFound();
  const event = await db
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .selectAll("events")
    .where("events.organization_id", "=", organizationId)
    .where("events.project_id", "=", projectId)
    .where("events.event_id", "=", eventId)
    .where("issues.deleted_at", "is", null)
    .executeTakeFirst();
  if (!event) throw eventNotFound();
  return event;
}

/** The events just before and after this one in its issue, by (timestamp, id). */
async function neighbours(db: Kysely<Database>, event: StoredEvent) {
  const around = (direction: "<" | ">") =>
    db
      .selectFrom("events")
      .select("event_id")
      .where("issue_id", "=", Number(event.issue_id))
      .where(sql<boolean>`(timestamp, id) ${sql.raw(direction)} (${event.timestamp}, ${Number(event.id)})`)
      .orderBy("timestamp", direction === "<" ? "desc" : "asc")
      .orderBy("id", direction === "<" ? "desc" : "asc")
      .limit(1)
      .executeTakeFirst();
  const [previous, next] = await Promise.all([around("<"), around(">")]);
  return { previous: previous?.event_id ?? null, next: next?.event_id ?? null };
}

export const getEvent = defineEndpoint({
  method: "GET",
  path: EVENT_PATH,
  operationId: "events.get",
  summary: "Retrieve an event of a project, with its entries",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const project = await container.resolve(OrganizationServiceToken).requireProject(organization.id, params.project_id_or_slug);
    const db = container.resolve(Db);
    const event = await findEvent(db, organization.id, project.id, params.event_id);
    const issue = await db.selectFrom("issues").select("metadata").where("id", "=", Number(event.issue_id)).executeTakeFirst();
    return { body: { ...serializeEvent(event, await neighbours(db, event)), metadata: issue?.metadata ?? {} } };
  },
});

export const getEventJson = defineEndpoint({
  method: "GET",
  path: `${EVENT_PATH}json/`,
  operationId: "events.json",
  summary: "The event as the SDK sent it",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const project = await container.resolve(OrganizationServiceToken).requireProject(organization.id, params.project_id_or_slug);
    const event = await findEvent(container.resolve(Db), organization.id, project.id, params.event_id);
    return { body: event.payload };
  },
});

export const listIssueHashes = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/hashes/",
  operationId: "issues.hashes",
  summary: "The fingerprint hashes grouped into an issue, newest latest event first",
  scopes: ["event:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const issue = await container.resolve(IssueRepositoryToken).find(organization.id, params.issue_id);
    if (!issue) throw notFound();
    const db = container.resolve(Db);
    const hashes = await db.selectFrom("issue_hashes").select("hash").where("issue_id", "=", Number(issue.id)).execute();
    const rows = await Promise.all(
      hashes.map(async ({ hash }, index) => ({
        hash,
        index,
        event: await db
          .selectFrom("events")
          .selectAll()
          .where("issue_id", "=", Number(issue.id))
          .where(sql<boolean>`hashes @> ARRAY[${hash}]::text[]`)
          .orderBy("timestamp", "desc")
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst(),
      })),
    );
    const keyOf = (row: (typeof rows)[number]) => row.event?.timestamp.getTime() ?? 0;
    const sorted = rows.sort((a, b) => keyOf(b) - keyOf(a) || b.index - a.index);
    const page = await keysetPage(
      async (bound) => {
        const beyond = (row: (typeof rows)[number]) =>
          !bound.after ||
          (bound.order === "desc"
            ? keyOf(row) < bound.after.value || (keyOf(row) === bound.after.value && row.index < bound.after.id)
            : keyOf(row) > bound.after.value || (keyOf(row) === bound.after.value && row.index > bound.after.id));
        return (bound.order === "desc" ? sorted : [...sorted].reverse()).filter(beyond).slice(0, bound.limit);
      },
      { cursor: query.cursor, limit: query.per_page, keyOf, idOf: (row) => row.index },
    );
    return pageReply(url, page, query.per_page, ({ hash, event }) => ({
      id: hash,
      latestEvent: event
        ? {
            eventID: event.event_id,
            groupID: idString(event.issue_id),
            title: event.title,
            message: event.message,
            dateCreated: isoDate(event.timestamp),
            platform: event.platform,
            tags: event.tags.map(([key, value]) => ({ key, value })),
          }
        : null,
    }));
  },
});

export const listIssueExternalIssues = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/external-issues/",
  operationId: "issues.externalIssues",
  summary: "External issue links of every installation for one issue",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const issue = await container.resolve(IssueRepositoryToken).find(organization.id, params.issue_id);
    if (!issue) throw notFound();
    const links = await container
      .resolve(Db)
      .selectFrom("external_issues as l")
      .innerJoin("app_installations as i", "i.id", "l.installation_id")
      .innerJoin("apps as a", "a.id", "i.app_id")
      .innerJoin("issues as s", "s.id", "l.issue_id")
      .innerJoin("projects as p", "p.id", "s.project_id")
      .select(["l.id", "l.issue_id", "l.web_url", "l.identifier", "a.slug as app_slug", "p.slug as project_slug"])
      .where("l.organization_id", "=", organization.id)
      .where("l.issue_id", "=", Number(issue.id))
      .orderBy("l.id")
      .execute();
    return {
      body: links.map((link) => ({
        id: idString(link.id),
        issueId: idString(link.issue_id),
        webUrl: link.web_url,
        project: link.project_slug,
        identifier: link.identifier,
        serviceType: link.app_slug,
        displayName: `${link.project_slug}#${link.identifier}`,
      })),
    };
  },
});
