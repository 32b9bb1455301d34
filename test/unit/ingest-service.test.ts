import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.js";
import type { EventSink, ProjectRef } from "../../src/plugins/event-store/index.js";
import type { ProjectKeyRecord } from "../../src/plugins/ingest/accept/project-keys.js";
import type { OutcomeRecord } from "../../src/plugins/ingest/outcomes/recorder.js";
import { SharedRateLimiter } from "../../src/plugins/ingest/limits/rate-limit.js";
import {
  type IngestAdmission,
  type IngestInput,
  IngestService,
  type OverloadSignal,
} from "../../src/plugins/ingest/accept/service.js";
import { memoryQuotaStore } from "../helpers/memory-quota.js";

const KEY = "0123456789abcdef0123456789abcdef";
const NOW = new Date(Date.UTC(2026, 10, 22, 10, 33, 10));
const project: ProjectRef = { id: 7, organizationId: 3, platform: "node" };

/** Queued mode's admission, never full: only the overload signal refuses. */
const roomyQueue: IngestAdmission = { admit: async () => true, release: () => undefined, isFull: () => false };

/** A service over fakes: keys known by public key, a sink that records, a fixed clock. */
function setup(rateLimitPerMinute: number | null = null, overload?: OverloadSignal) {
  const captured: Array<{ project: ProjectRef; event: unknown; receivedAt?: Date }> = [];
  const lookups: string[] = [];
  const record: ProjectKeyRecord = {
    keyId: 1,
    project,
    rateLimit: rateLimitPerMinute === null ? null : { count: rateLimitPerMinute, windowMs: 60_000 },
  };
  const keys = {
    async authenticate(publicKey: string | null, projectId: number) {
      lookups.push(publicKey ?? "(none)");
      if (publicKey !== KEY || projectId !== project.id) throw new ApiError(401, "Invalid DSN key");
      return record;
    },
  };
  const sink: EventSink = {
    async capture(target, event, options) {
      captured.push({ project: target, event, receivedAt: options?.receivedAt });
      return { eventId: String((event as { event_id?: string }).event_id ?? "generated") };
    },
  };
  const outcomes: OutcomeRecord[] = [];
  const service = new IngestService(
    keys,
    sink,
    new SharedRateLimiter(60_000, memoryQuotaStore()),
    { now: () => NOW },
    { record: (outcome) => outcomes.push(outcome) },
    overload && roomyQueue,
    overload,
  );
  return { service, captured, lookups, outcomes };
}

function input(
  body: string | Uint8Array,
  options: { projectId?: string; query?: string; headers?: Record<string, string> } = {},
): IngestInput {
  return {
    projectId: options.projectId ?? "7",
    headers: new Headers(options.headers),
    query: new URLSearchParams(options.query ?? `sentry_key=${KEY}`),
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
  };
}

async function failure(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected a failure");
}

const envelope = (...events: object[]) =>
  ['{"event_id":"head"}', ...events.flatMap((event) => ['{"type":"event"}', JSON.stringify(event)])].join("\n");

describe("IngestService outcomes", () => {
  const outcome = (outcome: string, reason: string, quantity: number, category = "error") => ({
    projectId: 7,
    category,
    outcome,
    reason,
    quantity,
    at: NOW,
  });

  it("counts accepted, rate-limited and invalid events, and what SDKs report discarding", async () => {
    const { service, outcomes } = setup(2);
    await service.ingestEnvelope(input(envelope({ event_id: "a" }, { event_id: "b" })));
    await failure(service.ingestEnvelope(input(envelope({ event_id: "c" }))));
    await failure(service.ingestEnvelope(input(["{}", '{"type":"event"}', "[1]"].join("\n"))));
    const report = {
      timestamp: 1,
      discarded_events: [
        { reason: "queue_overflow", category: "error", quantity: 3 },
        { reason: "sample_rate", category: "transaction", quantity: 5 },
      ],
    };
    await service.ingestEnvelope(input(["{}", '{"type":"client_report"}', JSON.stringify(report)].join("\n")));
    expect(outcomes).toEqual([
      outcome("accepted", "", 2),
      outcome("rate_limited", "key_quota", 1),
      outcome("invalid", "payload", 1),
      outcome("client_discard", "queue_overflow", 3),
      outcome("client_discard", "sample_rate", 5, "transaction"),
    ]);
  });

  it("skips a malformed client report instead of refusing the envelope, and counts nothing for an unknown key", async () => {
    const { service, outcomes } = setup();
    expect(
      await service.ingestEnvelope(input(["{}", '{"type":"client_report"}', '{"discarded_events":"lots"}'].join("\n"))),
    ).toEqual({});
    await failure(
      service.ingestEnvelope(
        input(envelope({ event_id: "x" }), { query: "sentry_key=ffffffffffffffffffffffffffffffff" }),
      ),
    );
    expect(outcomes).toEqual([]);
  });
});

describe("IngestService.ingestEnvelope", () => {
  it("hands each event to the sink with the receive time and answers the first id", async () => {
    const { service, captured } = setup();
    expect(await service.ingestEnvelope(input(envelope({ event_id: "a1" }, { message: "second" })))).toEqual({
      id: "a1",
    });
    expect(captured).toEqual([
      { project, event: { event_id: "a1" }, receivedAt: NOW },
      { project, event: { message: "second", event_id: "head" }, receivedAt: NOW },
    ]);
  });

  it("answers {} for an envelope without events", async () => {
    const { service, captured } = setup();
    expect(await service.ingestEnvelope(input('{}\n{"type":"client_report"}\n{"discarded_events":[]}'))).toEqual({});
    expect(captured).toEqual([]);
  });

  it("authenticates with the envelope header's DSN when the request carries no key", async () => {
    const { service, lookups } = setup();
    const body = `{"dsn":"http://${KEY}@localhost/7"}\n{"type":"event"}\n{"event_id":"d1"}`;
    expect(await service.ingestEnvelope(input(body, { query: "" }))).toEqual({ id: "d1" });
    expect(lookups).toEqual([KEY]);
  });

  it("refuses a bad key before decompressing the body", async () => {
    const { service } = setup();
    const error = await failure(
      service.ingestEnvelope(
        input("not gzip at all", { query: "sentry_key=wrong", headers: { "Content-Encoding": "gzip" } }),
      ),
    );
    expect(error).toMatchObject({ status: 401, detail: "Invalid DSN key" });
  });

  it("answers 401 when no key is given anywhere, and 404 for a non-numeric project id", async () => {
    const { service } = setup();
    expect(await failure(service.ingestEnvelope(input(envelope({}), { query: "" })))).toMatchObject({ status: 401 });
    expect(await failure(service.ingestEnvelope(input(envelope({}), { projectId: "web" })))).toMatchObject({
      status: 404,
    });
  });

  it("decompresses gzip bodies", async () => {
    const { service } = setup();
    const body = gzipSync(envelope({ event_id: "gz" }));
    expect(await service.ingestEnvelope(input(body, { headers: { "Content-Encoding": "gzip" } }))).toEqual({
      id: "gz",
    });
  });

  it("rate-limits events only, refusing the whole envelope with the retry headers", async () => {
    const { service, captured } = setup(1);
    await service.ingestEnvelope(input(envelope({ event_id: "ok" })));
    expect(await service.ingestEnvelope(input('{}\n{"type":"sessions"}\n{}'))).toEqual({});
    const error = await failure(service.ingestEnvelope(input(envelope({ event_id: "over" }))));
    expect(error).toMatchObject({
      status: 429,
      detail: "Rate limit exceeded; retry after 50 seconds",
      headers: { "Retry-After": "50", "X-Sentry-Rate-Limits": "50:error:project:rate_limited" },
    });
    expect(captured.map((entry) => (entry.event as { event_id: string }).event_id)).toEqual(["ok"]);
  });

  it("does not charge the rate limit for a malformed envelope", async () => {
    const { service } = setup(1);
    expect(await failure(service.ingestEnvelope(input('{}\n{"type":"event"}\n{broken')))).toMatchObject({
      status: 400,
    });
    expect(await service.ingestEnvelope(input(envelope({ event_id: "fits" })))).toEqual({ id: "fits" });
  });
});

describe("IngestService.ingestStore", () => {
  it("takes one JSON event, authenticated by header", async () => {
    const { service, captured } = setup();
    const headers = { "X-Sentry-Auth": `Sentry sentry_key=${KEY}, sentry_version=7` };
    expect(await service.ingestStore(input('{"event_id":"s1","message":"m"}', { query: "", headers }))).toEqual({
      id: "s1",
    });
    expect(captured).toHaveLength(1);
  });

  it("answers 400 for a body that is not an event, 413 over 1 MiB after decompression", async () => {
    const { service } = setup();
    expect(await failure(service.ingestStore(input("")))).toMatchObject({ status: 400 });
    const big = gzipSync(`{"message":"${"x".repeat(1024 * 1024)}"}`);
    expect(await failure(service.ingestStore(input(big, { headers: { "Content-Encoding": "gzip" } })))).toMatchObject({
      status: 413,
      detail: "Event too large (limit 1 MiB)",
    });
  });
});

describe("IngestService load shedding (queued mode)", () => {
  const signal = { overloaded: true };

  it("refuses while overloaded, before the body is read, with 429 and the SDK's rate-limit headers; counted as rate_limited/overloaded", async () => {
    const { service, captured, outcomes } = setup(null, signal);
    signal.overloaded = true;
    const error = await failure(service.ingestEnvelope(input("not even an envelope")));
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({ "Retry-After": "1", "X-Sentry-Rate-Limits": "1:error:organization:overloaded" });
    expect(captured).toEqual([]);
    expect(outcomes).toEqual([
      { projectId: 7, category: "error", outcome: "rate_limited", reason: "overloaded", quantity: 1, at: NOW },
    ]);
    expect((await failure(service.ingestStore(input("{}")))).status).toBe(429);
  });

  it("with the key in the envelope only, refuses after the parse with the exact count and spends none of the key's quota", async () => {
    const { service, captured, outcomes } = setup(2, signal);
    const keyInEnvelope = (id: string) =>
      [
        '{"event_id":"head","dsn":"http://' + KEY + '@localhost/7"}',
        '{"type":"event"}',
        JSON.stringify({ event_id: `${id}1` }),
        '{"type":"event"}',
        JSON.stringify({ event_id: `${id}2` }),
      ].join("\n");
    signal.overloaded = true;
    expect((await failure(service.ingestEnvelope(input(keyInEnvelope("a"), { query: "" })))).status).toBe(429);
    expect(outcomes.map((outcome) => [outcome.outcome, outcome.reason, outcome.quantity])).toEqual([
      ["rate_limited", "overloaded", 2],
    ]);
    signal.overloaded = false;
    expect(await service.ingestEnvelope(input(keyInEnvelope("b"), { query: "" }))).toEqual({ id: "b1" });
    expect(captured).toHaveLength(2);
  });

  it("lets an envelope without events (a client report) through when its key came inside it", async () => {
    const { service, outcomes } = setup(null, signal);
    signal.overloaded = true;
    const report = [
      '{"dsn":"http://' + KEY + '@localhost/7"}',
      '{"type":"client_report"}',
      JSON.stringify({ discarded_events: [{ reason: "sample_rate", category: "error", quantity: 3 }] }),
    ].join("\n");
    expect(await service.ingestEnvelope(input(report, { query: "" }))).toEqual({});
    expect(outcomes.map((outcome) => [outcome.outcome, outcome.reason, outcome.quantity])).toEqual([
      ["client_discard", "sample_rate", 3],
    ]);
  });
});
