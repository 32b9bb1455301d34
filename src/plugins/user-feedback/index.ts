import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { ScrubbingSettingsToken } from "../data-scrubbing/index.js";
import { EventStoreToken } from "../event-store/index.js";
import { EnvelopeItemHandlerToken } from "../ingest/index.js";
import { IssueUserReportCountsToken } from "../issues/index.js";
import { feedbackItemHandler } from "./envelope.js";
import { userFeedbackMigrations } from "./migrations.js";
import { UserFeedbackRepository } from "./repository.js";
import { userFeedbackEndpoints } from "./routes.js";
import { UserFeedbackService } from "./service.js";
import { linkFeedbackTask } from "./tasks.js";
import { UserFeedbackRepositoryToken, UserFeedbackServiceToken } from "./tokens.js";
import { sendFeedbackWebhook } from "./webhooks.js";
import "./tables.js";
import "./domain-events.js";

/**
 * User feedback (docs/user-feedback.md): the SDKs' `feedback` and `user_report` envelope items and
 * Sentry's legacy `POST …/user-feedback/`, linked to their event's issue (its `userReportCount`),
 * listed per project and per issue, announced as `feedback.created` (an app webhook category).
 */
export const userFeedbackPlugin = definePlugin({
  id: "user-feedback",
  migrations: userFeedbackMigrations,
  dependencies: ["organizations", "event-store", "issues", "data-scrubbing", "ingest", "webhooks"],
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, UserFeedbackRepositoryToken, () => new UserFeedbackRepository(db));
    registerFactory(
      container,
      UserFeedbackServiceToken,
      (c) =>
        new UserFeedbackService(
          db,
          c.resolve(UserFeedbackRepositoryToken),
          () => c.resolve(EventStoreToken),
          c.resolve(EventBus),
          c.resolve(Clock),
          c.resolve(ScrubbingSettingsToken),
        ),
    );
    registerFactory(container, EnvelopeItemHandlerToken, (c) =>
      feedbackItemHandler(() => c.resolve(UserFeedbackServiceToken)),
    );
    registerFactory(container, IssueUserReportCountsToken, (c) => c.resolve(UserFeedbackRepositoryToken));
  },
  endpoints: userFeedbackEndpoints,
  tasks: [linkFeedbackTask],
  on: { "feedback.created": sendFeedbackWebhook },
});

export type * from "./domain-events.js";
export type { UserFeedbackTable, UserFeedbackAttachmentsTable, FeedbackKind } from "./tables.js";
