/** A user feedback as `feedback.created` carries it (and its app webhook renders it). */
export interface FeedbackSnapshot {
  id: number;
  kind: "feedback" | "user_report";
  eventId: string | null;
  issueId: number | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: string | null;
  dateCreated: Date;
  project: { id: number; slug: string; name: string };
}

declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    /** A user sent feedback (the widget, `captureFeedback`, a user report): not sent again for a replaced report. */
    "feedback.created": { feedback: FeedbackSnapshot };
  }
}
