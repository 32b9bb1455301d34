import type { EnvelopeItemContext, EnvelopeItemHandler, EnvelopeItemInput } from "../ingest/index.js";
import { feedbackFromEvent, feedbackFromReport, FEEDBACK_LIMITS, type FeedbackInput } from "./input.js";
import type { ScreenshotInput } from "./repository.js";
import type { UserFeedbackService } from "./service.js";

/** The outcomes' category of feedback items (Sentry's data category). */
const CATEGORY = "feedback";
const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(payload: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(payload));
  } catch {
    return undefined;
  }
}

/** The report an item holds, or null when it does not parse (counted `invalid` by the caller). */
function inputOf(item: EnvelopeItemInput): FeedbackInput | null {
  const json = parseJson(item.payload);
  return item.type === "feedback" ? feedbackFromEvent(json) : feedbackFromReport(json);
}

/**
 * The envelope's image attachments, which the JS SDK's widget sends as the feedback's screenshot;
 * one too large is dropped and counted, the feedback still kept.
 */
function screenshotsOf(context: EnvelopeItemContext): ScreenshotInput[] {
  const kept: ScreenshotInput[] = [];
  for (const attachment of context.attachments) {
    const contentType = typeof attachment.header.content_type === "string" ? attachment.header.content_type : "";
    if (!contentType.startsWith("image/")) continue;
    if (attachment.payload.byteLength > FEEDBACK_LIMITS.screenshotBytes || kept.length >= FEEDBACK_LIMITS.screenshots) {
      context.outcome("attachment", "invalid", "too_large", 1);
      continue;
    }
    const filename = typeof attachment.header.filename === "string" ? attachment.header.filename : "screenshot";
    kept.push({ name: filename.slice(0, 200), contentType: contentType.slice(0, 100), data: attachment.payload });
  }
  return kept;
}

/**
 * Takes the SDKs' `feedback` items (the widget, `captureFeedback`) and legacy `user_report` items
 * from envelopes (docs/ingest.md, "Other envelope items"): each kept, or counted `invalid` when it
 * does not parse. The envelope's screenshots go with its first feedback.
 */
export function feedbackItemHandler(service: () => UserFeedbackService): EnvelopeItemHandler {
  return {
    itemTypes: ["feedback", "user_report"],
    async accept(items, context) {
      let screenshots = items.some((item) => item.type === "feedback") ? screenshotsOf(context) : [];
      for (const item of items) {
        const input = inputOf(item);
        if (input === null) {
          context.outcome(CATEGORY, "invalid", "payload", 1);
          continue;
        }
        const result = await service().submit(context.project, input, input.kind === "feedback" ? screenshots : []);
        if (input.kind === "feedback") screenshots = [];
        if (result.status === "created" || result.status === "replaced") context.outcome(CATEGORY, "accepted", "", 1);
      }
    },
  };
}
