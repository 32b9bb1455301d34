// A host plugin: who resolved which issue, kept in a table of its own. It shows the three things
// most host plugins need — a migration, a domain-event subscriber and an endpoint — and it is
// tested in test/adapters/plugin-example.test.ts. See docs/plugins.md.
import { defineEndpoint, definePlugin, tokens } from "faultline";

/** The plugin's own table, in Faultline's schema; tracked in `faultline_migration_acme_resolutions`. */
const migrations = [
  {
    name: "0001_resolution_log",
    statements: (s) => [
      `CREATE TABLE ${s}.acme_resolution_log (
         id serial PRIMARY KEY,
         organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
         short_id text NOT NULL,
         resolved_by text NOT NULL,
         resolution text NOT NULL,
         resolved_at timestamptz NOT NULL)`,
      `CREATE INDEX acme_resolution_log_organization ON ${s}.acme_resolution_log (organization_id, id DESC)`,
    ],
  },
];

export const resolutionLogPlugin = definePlugin({
  id: "acme-resolutions",
  dependencies: ["issues"],
  migrations,
  on: {
    // Runs inside the transaction that resolves the issue: the row commits with the change, or neither does.
    "issue.resolved": async (event, scope) => {
      const { issue, resolutionType } = event.payload;
      await scope.trx
        .insertInto("acme_resolution_log")
        .values({ organization_id: event.organizationId, short_id: issue.shortId, resolved_by: event.actor.name, resolution: resolutionType, resolved_at: event.occurredAt })
        .execute();
    },
  },
  endpoints: [
    defineEndpoint({
      method: "GET",
      path: "/api/0/organizations/{organization_id_or_slug}/resolutions/",
      operationId: "resolutions.list",
      summary: "Who resolved which issue, newest first",
      scopes: ["event:read"],
      handler: async ({ organization, container }) => ({
        body: await container
          .resolve(tokens.Db)
          .selectFrom("acme_resolution_log")
          .select(["short_id as shortId", "resolved_by as resolvedBy", "resolution", "resolved_at as resolvedAt"])
          .where("organization_id", "=", organization.id)
          .orderBy("id", "desc")
          .limit(100)
          .execute(),
      }),
    }),
  ],
});
