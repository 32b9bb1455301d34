import { registerFactory } from "../../container/container.js";
import { Clock, Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { IssueMergeParticipantToken, IssueRepositoryToken } from "../issues/index.js";
import { externalIssuesMergeParticipant } from "./merge.js";
import { ExternalIssueRepository } from "./repository.js";
import { createLink, deleteLink, listLinks } from "./routes.js";
import { ExternalIssueService } from "./service.js";
import { ExternalIssueRepositoryToken, ExternalIssueServiceToken } from "./tokens.js";
import { externalIssuesMigrations, externalIssuesOwnMigrations } from "./migrations.js";

/** External issue links: an installation ties issues of its organization to items in its own tracker. */
export const externalIssuesPlugin = definePlugin({
  id: "external-issues",
  coreLedgerMigrations: externalIssuesMigrations,
  migrations: externalIssuesOwnMigrations,
  dependencies: ["organizations", "installations", "issues"],
  register(container) {
    registerFactory(container, ExternalIssueRepositoryToken, (c) => new ExternalIssueRepository(() => c.resolve(Db)));
    registerFactory(
      container,
      ExternalIssueServiceToken,
      (c) =>
        new ExternalIssueService(
          () => c.resolve(Db),
          c.resolve(ExternalIssueRepositoryToken),
          c.resolve(IssueRepositoryToken),
          c.resolve(Clock),
        ),
    );
    container.register(IssueMergeParticipantToken, { useValue: externalIssuesMergeParticipant });
  },
  // The per-issue list (`…/issues/{issue_id}/external-issues/`) belongs to the issues plugin.
  endpoints: [listLinks, createLink, deleteLink],
});
export type { ExternalIssuesTable } from "./tables.js";
