import type { IssueStatus } from "./tables.js";
import type { EventUser } from "../event-store/index.js";

/** The project part of every issue event payload. */
export interface ProjectSnapshot {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
}

/** An issue as it is right after the change, with what webhooks need to render it. */
export interface IssueSnapshot {
  id: number;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: IssueStatus;
  substatus: string | null;
  statusDetails: Record<string, unknown>;
  type: "error" | "default";
  platform: string | null;
  metadata: Record<string, unknown>;
  firstSeen: Date;
  lastSeen: Date;
  count: number;
  userCount: number;
  project: ProjectSnapshot;
}

/** One stored event, as `error.created` (and the service hooks' `event.created`) carry it. */
export interface EventSnapshot {
  eventId: string;
  issueId: number;
  title: string;
  culprit: string;
  message: string;
  level: string;
  platform: string | null;
  environment: string | null;
  release: string | null;
  timestamp: Date;
  received: Date;
  tags: Array<[string, string]>;
  user: EventUser | null;
  location: string | null;
  metadata: Record<string, unknown>;
  payload: Record<string, unknown>;
}

export type ResolutionType = "now" | "in_release" | "in_next_release" | "in_commit";

export interface Assignee {
  type: "user" | "team";
  id: string;
  name: string;
  email?: string;
}

export interface CommentSnapshot {
  id: number;
  issueId: number;
  text: string;
  userId: number | null;
  dateCreated: Date;
  dateUpdated: Date;
}

declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    "issue.created": { issue: IssueSnapshot; event: EventSnapshot };
    "issue.resolved": { issue: IssueSnapshot; resolutionType: ResolutionType };
    "issue.ignored": { issue: IssueSnapshot };
    "issue.assigned": { issue: IssueSnapshot; assignee: Assignee };
    "issue.unresolved": { issue: IssueSnapshot; reason: "manual" | "regression" | "snooze_expired" | "escalating" };
    /**
     * Every stored event. `firstEvent`: it created the issue; `transition`: the automatic status
     * change it caused (what issue alert conditions key on).
     */
    "error.created": {
      issue: IssueSnapshot;
      event: EventSnapshot;
      firstEvent: boolean;
      transition: "regression" | "snooze_expired" | "escalating" | null;
    };
    /** Issues merged into `issue` (the parent), which now holds everything of the `children` (deleted). */
    "issue.merged": { issue: IssueSnapshot; children: Array<{ id: number; shortId: string }> };
    "comment.created": { issue: IssueSnapshot; comment: CommentSnapshot };
    "comment.updated": { issue: IssueSnapshot; comment: CommentSnapshot };
    "comment.deleted": { issue: IssueSnapshot; comment: CommentSnapshot };
  }
}
