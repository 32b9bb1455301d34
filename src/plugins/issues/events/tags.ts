import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError } from "../../../http/errors.js";
import { cursorSchema, linkHeader, type Page, pageSizeSchema, parseCursor } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import {
  EventStoreToken,
  serializeTagKey,
  serializeTagValue,
  TAG_VALUE_SORTS,
  type TagScope,
} from "../../event-store/index.js";
import { ISSUE_PATH, requireIssue } from "./routes.js";

/** Top values shown per key in the key list and the key detail (Sentry shows 9 and 10). */
const TOP_VALUES = 10;

const environment = repeatable.transform((values) => values.filter((value) => value !== ""));
/** A tag key as stored: at most 32 characters (grouping/tags.ts). */
const keySchema = z.string().min(1).max(32, "a tag key has at most 32 characters");

export const listIssueTags = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}tags/`,
  operationId: "issues.tags",
  summary: "The tag keys of an issue's events, each with its totals and top values",
  scopes: ["event:read"],
  query: z.object({ environment, key: repeatable }),
  handler: async ({ organization, params, query, container }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const store = container.resolve(EventStoreToken);
    const scope: TagScope = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      environments: query.environment,
    };
    const [keys, top] = await Promise.all([store.tagKeys(scope, null), store.topTagValues(scope, null, TOP_VALUES)]);
    const wanted = new Set(query.key);
    return {
      body: keys
        .filter((key) => wanted.size === 0 || wanted.has(key.key))
        .map((key) => serializeTagKey(key, top.get(key.key) ?? [])),
    };
  },
});

export const getIssueTag = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}tags/{key}/`,
  operationId: "issues.tag",
  summary: "One tag key of an issue's events: totals and top values",
  scopes: ["event:read"],
  params: z.object({ organization_id_or_slug: z.string(), issue_id: z.string(), key: keySchema }),
  query: z.object({ environment }),
  handler: async ({ organization, params, query, container }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const store = container.resolve(EventStoreToken);
    const scope: TagScope = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      environments: query.environment,
    };
    const [[summary], top] = await Promise.all([
      store.tagKeys(scope, params.key),
      store.topTagValues(scope, params.key, TOP_VALUES),
    ]);
    if (!summary) throw new ApiError(404, "Tag key not found");
    return { body: serializeTagKey(summary, top.get(params.key) ?? []) };
  },
});

export const listIssueTagValues = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}tags/{key}/values/`,
  operationId: "issues.tagValues",
  summary: "The values of one tag key of an issue's events, with counts (most seen first)",
  scopes: ["event:read"],
  params: z.object({ organization_id_or_slug: z.string(), issue_id: z.string(), key: keySchema }),
  query: z.object({
    environment,
    sort: z.enum(TAG_VALUE_SORTS, { error: `must be one of ${TAG_VALUE_SORTS.join(", ")}` }).default("-count"),
    per_page: pageSizeSchema,
    cursor: cursorSchema,
  }),
  handler: async ({ organization, params, query, container, url }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const store = container.resolve(EventStoreToken);
    const scope: TagScope = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      environments: query.environment,
    };
    // An aggregate has no row id to keep a keyset on: these cursors are offsets (`0:{offset}:{isPrev}`).
    const cursor = parseCursor(query.cursor);
    const offset = cursor ? Math.max(0, cursor.isPrev ? cursor.id - query.per_page : cursor.id) : 0;
    const fetched = await store.tagValues(scope, params.key, query.sort, offset, query.per_page + 1);
    if (fetched.length === 0 && offset === 0) {
      const [summary] = await store.tagKeys(scope, params.key);
      if (!summary) throw new ApiError(404, "Tag key not found");
    }
    const rows = fetched.slice(0, query.per_page);
    const page: Page<unknown> = {
      rows,
      previous: { cursor: { value: 0, id: offset, isPrev: true }, results: offset > 0 },
      next: { cursor: { value: 0, id: offset + rows.length, isPrev: false }, results: fetched.length > query.per_page },
    };
    return {
      body: rows.map(serializeTagValue),
      headers: { Link: linkHeader(url, page), "X-Per-Page": String(query.per_page) },
    };
  },
});
