// The parts of Faultline's API shapes the dashboard reads (docs/openapi.json has them all).
export interface Project {
  id: string;
  slug: string;
  name: string;
  platform: string | null;
  features?: string[];
}

export interface Issue {
  id: string;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  substatus: string | null;
  firstSeen: string;
  lastSeen: string;
  count: string;
  userCount: number;
  assignedTo: string | null;
  isBookmarked: boolean;
  isSubscribed: boolean;
  /** Why the viewer follows the issue (`assigned`, `commented`, `status_change`, `explicit`). */
  subscriptionDetails?: { reason: string } | null;
  isPublic: boolean;
  /** The public page's id while the issue is shared, else null. */
  shareId?: string | null;
  numComments: number;
  userReportCount?: number;
  project: Project;
  stats?: Record<string, Array<[number, number]>>;
  statusDetails?: Record<string, unknown>;
  activity?: Activity[];
}

export interface Activity {
  id: string;
  type: string;
  data: Record<string, unknown>;
  dateCreated: string;
  user: { username: string; name: string | null } | null;
}

export interface Frame {
  filename: string | null;
  absPath: string | null;
  module: string | null;
  function: string | null;
  lineNo: number | null;
  colNo: number | null;
  inApp: boolean | null;
  context?: Array<[number, string]>;
}

export interface ExceptionValue {
  type: string | null;
  value: string | null;
  module?: string | null;
  mechanism?: { type?: string; handled?: boolean } | null;
  stacktrace?: { frames: Frame[] } | null;
}

export interface Breadcrumb {
  type?: string | null;
  category?: string | null;
  level?: string | null;
  message?: string | null;
  timestamp?: string | number | null;
  data?: Record<string, unknown> | null;
}

export type Entry =
  | { type: "exception"; data: { values: ExceptionValue[] } }
  | { type: "breadcrumbs"; data: { values: Breadcrumb[] } }
  | {
      type: "request";
      data: {
        url?: string;
        method?: string;
        query?: Array<[string, string]>;
        headers?: Array<[string, string]>;
        data?: unknown;
      };
    }
  | { type: "message"; data: { formatted?: string } };

export interface SentryEvent {
  eventID: string;
  title: string;
  message: string | null;
  dateCreated: string;
  environment: string | null;
  release: { version: string } | null;
  tags: Array<{ key: string; value: string }>;
  user: Record<string, string | null> | null;
  contexts: Record<string, Record<string, unknown>> | null;
  sdk: { name: string; version: string } | null;
  entries: Entry[];
  nextEventID: string | null;
  previousEventID: string | null;
}

/** `GET …/issues/{id}/tags/`: a key with its totals over every event of the issue. */
export interface TagKey {
  key: string;
  name: string;
  totalValues: number;
  uniqueValues: number;
  topValues: Array<{ value: string; count: number; firstSeen: string | null; lastSeen: string | null }>;
}

/** `GET /organizations/`: the organizations the caller can open. */
export interface Organization {
  id: string;
  slug: string;
  name: string;
}

/** `GET /shared/issues/{shareId}/`: a publicly shared issue, its latest event's message, stack and request URL only. */
export interface SharedIssue {
  shareId: string;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  count: string;
  firstSeen: string;
  lastSeen: string;
  project: { slug: string; name: string; organization: { slug: string; name: string } };
  latestEvent: { eventID: string; dateCreated: string; entries: Entry[] } | null;
}
