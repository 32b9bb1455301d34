import type { TaskDefinition } from "../../worker/task.js";
import { UserFeedbackServiceToken } from "./tokens.js";

/** Reports looked at per run: each costs one event lookup. */
const LINK_BATCH = 100;
/** How long a report waits for its event: past this, the event is taken as never coming (filtered, dropped). */
const LINK_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Links reports that arrived before their event was stored (queued ingest digests events a
 * moment after it answers the SDK) to the event's issue once it is (docs/user-feedback.md, "Linking").
 */
export const linkFeedbackTask: TaskDefinition = {
  id: "user-feedback.link",
  intervalMs: 10_000,
  run: async ({ container, now }) => {
    const since = new Date(now.getTime() - LINK_WINDOW_MS);
    const { linked } = await container.resolve(UserFeedbackServiceToken).linkPending(since, LINK_BATCH);
    // Another run at once only while this one made progress: reports whose event never came stay behind.
    return linked === LINK_BATCH;
  },
};
