import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/schema.js";
import { runInTransaction } from "../../src/db/transaction.js";
import { ApiError } from "../../src/http/errors.js";
import { formatCursor } from "../../src/http/pagination.js";
import type {
  EventStore,
  IssueEventFilter,
  ProjectRef,
  StorableEvent,
  StoredEvent,
} from "../../src/plugins/event-store/index.js";

/** What the conformance suite needs of an event store implementation and the instance around it. */
export interface EventStoreHarness {
  store: EventStore;
  /** The instance's database: `storeBatch` runs in one of its transactions, as the ingest digest does. */
  db: Kysely<Database>;
  /** Two projects of one organization (the first with slug `web`), and one of another organization. */
  project: ProjectRef;
  sibling: ProjectRef;
  stranger: ProjectRef;
  close(): Promise<void>;
}

const T = Date.UTC(2026, 10, 2, 12, 0, 0);
const hex = (n: number) => n.toString(16).padStart(32, "0");

function rawEvent(n: number, overrides: Record<string, unknown> = {}) {
  return {
    event_id: hex(n),
    timestamp: (T + n * 1000) / 1000,
    platform: "node",
    level: "error",
    environment: n % 2 === 0 ? "production" : "staging",
    tags: { shop: n <= 3 ? "eu" : "us" },
    user: { id: `u${n % 2}` },
    exception: { values: [{ type: "TypeError", value: "x is undefined" }] },
    ...overrides,
  };
}

/**
 * The contract of {@link EventStore}, run through the interface only: what any implementation
 * (PostgreSQL's today, a columnar one later) must do for the issues plugin and the events API.
 * `setup` builds an instance whose `EventStoreToken` is the implementation under test.
 */
export function eventStoreConformance(name: string, setup: () => Promise<EventStoreHarness>) {
  describe(`EventStore conformance: ${name}`, () => {
    let h: EventStoreHarness;
    let issueId: number;
    const filter = (over: Partial<IssueEventFilter> = {}): IssueEventFilter => ({
      organizationId: h.project.organizationId,
      issueId,
      environments: [],
      tags: [],
      text: [],
      ...over,
    });
    const store = (events: StorableEvent[]) => runInTransaction(h.db, (scope) => h.store.storeBatch(scope, events));
    const received = (n: number) => new Date(T + 60_000 + n * 1000);
    const normalized = (project: ProjectRef, n: number, overrides: Record<string, unknown> = {}) => ({
      project,
      event: h.store.normalize(rawEvent(n, overrides), { receivedAt: received(n) }),
    });

    beforeAll(async () => {
      h = await setup();
      // Five events of one fingerprint; the third sent twice (an SDK's retry) in the same batch.
      await store([1, 2, 3, 3, 4].map((n) => normalized(h.project, n)));
      await store([normalized(h.project, 5)]);
      const first = await h.store.findProjectEvent(h.project.organizationId, h.project.id, hex(1));
      issueId = Number(first?.issue_id);
    });
    afterAll(async () => {
      await h?.close();
    });

    it("normalizes a valid event with its grouping hashes, and refuses a non-object with a 400", () => {
      const event = h.store.normalize(rawEvent(9), { receivedAt: received(9) });
      expect(event.eventId).toBe(hex(9));
      expect(event.hashes.length).toBeGreaterThan(0);
      expect(event.received).toEqual(received(9));
      let thrown: unknown;
      try {
        h.store.normalize("not an event");
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).status).toBe(400);
    });

    it("stores each event id once per project, grouped into one issue, found by project and by organization", async () => {
      expect(issueId).toBeGreaterThan(0);
      const page = await h.store.issueEventPage(filter(), "newest", undefined, 100);
      expect(page.rows.map((row) => row.event_id)).toEqual([5, 4, 3, 2, 1].map(hex));
      expect(new Set(page.rows.map((row) => Number(row.issue_id)))).toEqual(new Set([issueId]));
      // Sent again in a later batch: still one event.
      await store([normalized(h.project, 2)]);
      expect((await h.store.issueEventPage(filter(), "newest", undefined, 100)).rows).toHaveLength(5);

      const found = await h.store.findOrganizationEvent(h.project.organizationId, hex(4));
      expect(found).toMatchObject({ event_id: hex(4), project_slug: "web" });
      expect(await h.store.findProjectEvent(h.project.organizationId, h.sibling.id, hex(4))).toBeUndefined();
      expect(await h.store.findProjectEvent(h.stranger.organizationId, h.project.id, hex(4))).toBeUndefined();
      expect(await h.store.findOrganizationEvent(h.stranger.organizationId, hex(4))).toBeUndefined();
    });

    it("keeps one event id apart per project: the same id in a sibling project is another event", async () => {
      await store([normalized(h.sibling, 1)]);
      const mine = await h.store.findProjectEvent(h.project.organizationId, h.project.id, hex(1));
      const theirs = await h.store.findProjectEvent(h.sibling.organizationId, h.sibling.id, hex(1));
      expect(theirs).toBeDefined();
      expect(theirs?.id).not.toBe(mine?.id);
      expect(Number(theirs?.issue_id)).not.toBe(issueId);
    });

    it("pages an issue's events newest or oldest first, by cursor, within a filter", async () => {
      const walk = async (order: "newest" | "oldest") => {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let guard = 0; guard < 10; guard++) {
          const page = await h.store.issueEventPage(filter(), order, cursor, 2);
          seen.push(...page.rows.map((row: StoredEvent) => row.event_id));
          if (!page.next.results) break;
          cursor = formatCursor(page.next.cursor);
        }
        return seen;
      };
      expect(await walk("newest")).toEqual([5, 4, 3, 2, 1].map(hex));
      expect(await walk("oldest")).toEqual([1, 2, 3, 4, 5].map(hex));
      const production = await h.store.issueEventPage(
        filter({ environments: ["production"] }),
        "newest",
        undefined,
        10,
      );
      expect(production.rows.map((row) => row.event_id)).toEqual([4, 2].map(hex));
      const us = await h.store.issueEventPage(filter({ tags: [["shop", "us"]] }), "newest", undefined, 10);
      expect(us.rows.map((row) => row.event_id)).toEqual([5, 4].map(hex));
      const window = filter({ start: new Date(T + 2000), end: new Date(T + 4000) });
      expect((await h.store.issueEventPage(window, "oldest", undefined, 10)).rows.map((r) => r.event_id)).toEqual(
        [2, 3].map(hex),
      );
    });

    it("pages a project's events (the project event list), not another project's or organization's", async () => {
      const project = {
        organizationId: h.project.organizationId,
        projectId: h.project.id,
        environments: [],
        tags: [],
        text: [],
      };
      const rows = (await h.store.issueEventPage(project, "newest", undefined, 100)).rows;
      expect(rows.map((row) => row.event_id)).toEqual(expect.arrayContaining([5, 4, 3, 2, 1].map(hex)));
      expect(rows.every((row) => row.project_id === h.project.id)).toBe(true);
      const times = rows.map((row) => row.timestamp.getTime());
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const stranger = { ...project, organizationId: h.stranger.organizationId };
      expect((await h.store.issueEventPage(stranger, "newest", undefined, 100)).rows).toEqual([]);
    });

    it("finds the latest and oldest event, one event of the issue, and an event's neighbours", async () => {
      expect((await h.store.latestEvent(filter(), "newest"))?.event_id).toBe(hex(5));
      expect((await h.store.latestEvent(filter(), "oldest"))?.event_id).toBe(hex(1));
      expect((await h.store.latestEvent(filter({ environments: ["staging"] }), "newest"))?.event_id).toBe(hex(5));
      const third = await h.store.issueEvent(filter(), hex(3));
      expect(third?.event_id).toBe(hex(3));
      expect(await h.store.issueEvent(filter({ issueId: issueId + 1_000_000 }), hex(3))).toBeUndefined();
      expect(await h.store.neighbours(third as StoredEvent)).toEqual({ previous: hex(2), next: hex(4) });
      const last = await h.store.latestEvent(filter(), "newest");
      expect(await h.store.neighbours(last as StoredEvent)).toEqual({ previous: hex(4), next: null });
    });

    it("counts the tag keys and values of the issue's events (the issue page's facets)", async () => {
      const scope = { organizationId: h.project.organizationId, issueId, environments: [] };
      const keys = await h.store.tagKeys(scope, null);
      expect(keys.find((key) => key.key === "shop")).toEqual({ key: "shop", totalValues: 5, uniqueValues: 2 });
      const top = await h.store.topTagValues(scope, "shop", 1);
      expect(top.get("shop")?.map((row) => [row.value, row.count])).toEqual([["eu", 3]]);
      const values = await h.store.tagValues(scope, "shop", "-count", 0, 10);
      expect(values.map((row) => [row.value, row.count])).toEqual([
        ["eu", 3],
        ["us", 2],
      ]);
      expect(values[0]?.lastSeen).toEqual(new Date(T + 3000));
      const production = await h.store.tagValues({ ...scope, environments: ["production"] }, "shop", "id", 0, 10);
      expect(production.map((row) => [row.value, row.count])).toEqual([
        ["eu", 1],
        ["us", 1],
      ]);
    });

    it("lists the issue's hashes, each with its latest event", async () => {
      const { page, serialize } = await h.store.issueHashPage(issueId, undefined, 10);
      expect(page.rows.length).toBeGreaterThan(0);
      const [first] = page.rows.map(serialize);
      expect(first?.latestEvent).toMatchObject({ eventID: hex(5) });
    });

    it("counts an issue's events and distinct users received since a time, in the caller's transaction", async () => {
      expect(await h.store.countIssueEvents(h.db, issueId, received(0), "events")).toBe(5);
      expect(await h.store.countIssueEvents(h.db, issueId, received(4), "events")).toBe(2);
      expect(await h.store.countIssueEvents(h.db, issueId, received(0), "users")).toBe(2);
      const seenInside = await runInTransaction(h.db, async ({ trx }) => {
        await h.store.storeBatch({ trx, afterCommit: () => {} }, [normalized(h.project, 6)]);
        return h.store.countIssueEvents(trx, issueId, received(0), "events");
      });
      expect(seenInside).toBe(6);
    });

    it("deletes an issue's events in slices, after which their ids may be stored again", async () => {
      const first = await runInTransaction(h.db, ({ trx }) => h.store.deleteIssueEvents(trx, issueId, 4));
      expect(first).toBe(4);
      const rest = await runInTransaction(h.db, ({ trx }) => h.store.deleteIssueEvents(trx, issueId, 100));
      expect(rest).toBe(2);
      expect((await h.store.issueEventPage(filter(), "newest", undefined, 10)).rows).toEqual([]);
      await store([normalized(h.project, 1)]);
      expect(await h.store.findProjectEvent(h.project.organizationId, h.project.id, hex(1))).toBeDefined();
    });
  });
}
