import { Db } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { SEARCH_KEYS } from "./keys.js";

/** Enough for any suggestion list; an organization with more tag keys sees the first ones by name. */
const MAX_TAG_KEYS = 1000;

/**
 * The issue search vocabulary (the built-in keys of keys.ts) and the organization's tag keys: what
 * the dashboard's search box suggests, from the same definition the parser reads.
 */
export const listIssueSearchKeys = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/issue-search-keys/",
  operationId: "issues.searchKeys",
  summary: "The issue search keys: built-in keys with their aliases and examples, and the organization's tag keys",
  scopes: ["event:read"],
  handler: async (ctx) => {
    const tags = await ctx.container
      .resolve(Db)
      .selectFrom("issue_tag_keys")
      .select("key")
      .where("organization_id", "=", ctx.organization.id)
      .orderBy("key")
      .limit(MAX_TAG_KEYS)
      .execute();
    return {
      body: {
        keys: SEARCH_KEYS.map(({ key, aliases, kind, description, examples }) => ({
          key,
          aliases: [...aliases],
          kind,
          description,
          examples: [...examples],
        })),
        tags: tags.map((row) => row.key),
      },
    };
  },
});
