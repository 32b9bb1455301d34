// The issues plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { ColumnType, Generated, Selectable } from "kysely";
import type { Int8, Int8Id, Int8WithDefault, Json, JsonWithDefault, Timestamp } from "../../db/schema.js";

export type IssueStatus = "unresolved" | "resolved" | "ignored";

export interface ReleasesTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  version: string;
  date_created: Timestamp;
  /** Time of the release's first and last event in this project (null until one arrives). */
  first_event: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_event: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Issues whose first event came from this release. */
  new_groups: Generated<number>;
}

export interface IssuesTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  short_number: number;
  type: "error" | "default";
  title: string;
  culprit: string;
  message: string;
  level: string;
  platform: string | null;
  metadata: Json<Record<string, unknown>>;
  status: IssueStatus;
  substatus: string | null;
  status_details: JsonWithDefault<Record<string, unknown>>;
  /** How it was resolved, for regression checks: `{type, version?, commit?, releaseAtResolve?}`. */
  resolution: JsonWithDefault<Record<string, unknown> | null>;
  /** Conditions of an ignore: `{until?, count?, window?, userCount?, userWindow?, baseCount, baseUsers, since}`. */
  snooze: JsonWithDefault<Record<string, unknown> | null>;
  /** Copy of snooze.until, indexed for the expiry timer. */
  ignore_until: Date | null;
  first_seen: Timestamp;
  last_seen: Timestamp;
  times_seen: Int8WithDefault;
  user_count: Generated<number>;
  first_release: string | null;
  last_release: string | null;
  assignee_user_id: number | null;
  assignee_team_id: number | null;
  is_public: Generated<boolean>;
  share_id: string | null;
  num_comments: Generated<number>;
  deleted_at: Date | null;
  /** The logger the first event named (Sentry's issue `logger`), or null (0004_issue_logger). */
  logger: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface IssueHashesTable {
  project_id: number;
  hash: string;
  issue_id: Int8;
}

export interface IssueUsersTable {
  issue_id: Int8;
  user_key: string;
  first_seen: Timestamp;
}

export interface IssueFacetTables {
  issue_environments: { issue_id: Int8; environment: string };
  issue_releases: { issue_id: Int8; release: string };
  issue_tags: { issue_id: Int8; key: string; value: string };
  /** Event fields searched by `user.email:`, `error.type:`… (search/keys.ts EVENT_FIELDS), not shown as tags. */
  issue_search_values: { issue_id: Int8; field: string; value: string };
  /** Every tag key an event of the organization carried: what makes `key:value` a known search key. */
  issue_tag_keys: { organization_id: number; key: string };
  issue_stats_hourly: { issue_id: Int8; bucket: Timestamp; count: number };
  issue_stats_daily: { issue_id: Int8; bucket: Timestamp; count: number };
}

export interface IssueActivityTable {
  id: Int8Id;
  organization_id: number;
  issue_id: Int8;
  type: string;
  data: JsonWithDefault<Record<string, unknown>>;
  user_id: number | null;
  date_created: Timestamp;
}

export interface IssueUserStateTable {
  issue_id: Int8;
  user_id: number;
  is_bookmarked: Generated<boolean>;
  is_subscribed: Generated<boolean>;
  has_seen: Generated<boolean>;
  /** Why the user is subscribed (`SubscriptionReason`); null when they never were, or from before it was kept. */
  subscription_reason: Generated<string | null>;
}

export interface IssueCommentsTable {
  id: Int8Id;
  organization_id: number;
  issue_id: Int8;
  user_id: number | null;
  text: string;
  date_created: Timestamp;
  date_updated: Timestamp;
}

/**
 * A discarded issue (Sentry's group tombstone, docs/issues.md "Discard"): what it looked like, and
 * the grouping hashes whose future events are refused at accept until the tombstone is removed.
 */
export interface IssueTombstonesTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  /** The discarded issue's id (its row is purged later; kept for the record). */
  previous_issue_id: Int8;
  hashes: string[];
  level: string;
  title: string;
  culprit: string;
  type: string;
  metadata: Json<Record<string, unknown>>;
  actor_user_id: number | null;
  date_added: Timestamp;
}

export type Issue = Selectable<IssuesTable>;

export type IssueTombstone = Selectable<IssueTombstonesTable>;

export type IssueActivity = Selectable<IssueActivityTable>;

export type IssueComment = Selectable<IssueCommentsTable>;

declare module "../../db/schema.js" {
  /** The issues plugin's tables. */
  interface Database {
    releases: ReleasesTable;
    issues: IssuesTable;
    issue_hashes: IssueHashesTable;
    issue_users: IssueUsersTable;
    issue_environments: IssueFacetTables["issue_environments"];
    issue_releases: IssueFacetTables["issue_releases"];
    issue_tags: IssueFacetTables["issue_tags"];
    issue_search_values: IssueFacetTables["issue_search_values"];
    issue_tag_keys: IssueFacetTables["issue_tag_keys"];
    issue_stats_hourly: IssueFacetTables["issue_stats_hourly"];
    issue_stats_daily: IssueFacetTables["issue_stats_daily"];
    issue_activity: IssueActivityTable;
    issue_user_state: IssueUserStateTable;
    issue_comments: IssueCommentsTable;
    issue_tombstones: IssueTombstonesTable;
  }
}
