import { randomUUID } from "node:crypto";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { hostileJson, hostileString, nested } from "../helpers/hostile-json.js";
import { percentEncode, RAW_TROUBLE, safeDecode } from "../helpers/hostile-url.js";
import {
  isMutating,
  loadOperations,
  type Operation,
  sampleBody,
  SCIM_ERROR_SCHEMA,
} from "../helpers/openapi-operations.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { GLOBAL_PARAMS, seedTenant, snapshotTables, type Tenant, VALID_BODY_FIELDS } from "../helpers/tenant.js";

/**
 * Issue #13: a property-based walk of every operation of docs/openapi.json (read at run time, so
 * new endpoints are covered) with generated hostile paths, queries, bodies and credentials, plus
 * ingest envelopes. Whatever comes in: never a 5xx, every error is JSON with a `detail` (on SCIM
 * routes in the SCIM error schema), the server keeps answering and the seeded data is intact.
 *
 * Mutating requests (anything but GET/HEAD/OPTIONS) are generated so that they *cannot* succeed:
 * at least one path parameter is garbage, or the JSON body is invalid whatever the endpoint
 * (malformed, not an object, too deep, or carrying a NUL / lone surrogate, which the input policy
 * refuses everywhere). So the seeded data must come out byte-for-byte unchanged.
 *
 * A second walk acts as a sacrificial organization, seeded after the snapshot, whose own data its
 * requests may change (valid ids with hostile but well-formed bodies reach the handlers); the
 * seeded rows of the others must still all be there, unchanged, at the end.
 *
 * Bounded in time (FUZZ_TIME_LIMIT_MS, default 15 s for the whole file) and reproducible: a failure
 * prints fast-check's seed and path; rerun with FUZZ_SEED=<seed> FUZZ_PATH=<path>.
 */

/** The whole suite's time budget, shared out between the properties. */
const BUDGET_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 15_000);
const WALK_MS = Math.round(BUDGET_MS * 0.45);
const FREE_MS = Math.round(BUDGET_MS * 0.25);
const INGEST_MS = Math.round(BUDGET_MS * 0.15);
/** Properties run until their share of the budget is spent (fast-check's interruptAfterTimeLimit), however fast the machine. */
const UNBOUNDED_RUNS = 10_000_000;
/** One seed for every property, printed up front: a failure found after the property (data changed) replays with it too. */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const replay = { seed: SEED, ...(process.env.FUZZ_PATH && { path: process.env.FUZZ_PATH }) };

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A client error (4xx) whose body is JSON with a string `detail`; `context` describes the request on failure. */
function expectClientError(status: number, answer: string, context: string): void {
  expect(status, context).toBeGreaterThanOrEqual(400);
  expect(status, context).toBeLessThan(500);
  expect(typeof (JSON.parse(answer) as { detail?: unknown }).detail, context).toBe("string");
}

interface Segment {
  text: string;
  garbage: boolean;
}

interface GeneratedRequest {
  operation: Operation;
  /** The operation's method, or now and then one the path does not declare (405). */
  method: string;
  path: string;
  query: string;
  /** The whole `Authorization` header, or none. */
  authorization: string | null;
  body?: { bytes: string | Uint8Array; contentType: string | null };
}

/**
 * Ingest (non-JSON bodies, DSN keys) has properties of its own below. A mutation with neither a
 * path parameter nor a body could only be sent valid, so it is left out (there is none today).
 */
const operations = loadOperations().filter(
  (operation) =>
    !(operation.body && operation.body.contentType !== "application/json") &&
    !(isMutating(operation) && !operation.body && operation.pathParams.length === 0),
);

/** The methods each path template declares. */
const declaredMethods = new Map<string, Set<string>>();
for (const operation of loadOperations())
  declaredMethods.set(operation.path, new Set([...(declaredMethods.get(operation.path) ?? []), operation.method]));

describe("fuzz: every operation of docs/openapi.json with hostile input (issue #13)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let a: Tenant;
  let b: Tenant;
  let before: Record<string, string[]>;
  let runs = 0;
  /** A project of A's of its own for the ingest properties, whose events would otherwise change A's seeded issues. */
  let ingest: { id: string; key: string };

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    server = await serveFaultline(instance.faultline);
    a = await seedTenant(instance, server.url, "alpha");
    b = await seedTenant(instance, server.url, "bravo");
    const project = await instance.faultline.api.projects.create({
      organization: "alpha",
      slug: "fuzzed-ingest",
      platform: "node",
    });
    ingest = { id: String(project.id), key: project.keys[0]?.public as string };
    before = await snapshotTables(instance);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  /** A sacrificial tenant, seeded after the snapshot: the free-mutation property may change anything of its own. */
  let c: Tenant | undefined;
  const seededTexts = () =>
    new Set([
      ...[a, b, c].flatMap((tenant) => (tenant ? Object.values(tenant.params).flat() : [])),
      ...Object.values(GLOBAL_PARAMS),
    ]);

  /**
   * Who acts and what the generated requests may do: `invalid` mutations cannot succeed (the
   * seeded data must stay byte-for-byte the same); `free` ones may, on `acting`'s own data.
   */
  interface Scenario {
    acting: Tenant;
    /** Tenants whose ids fill path parameters. */
    named: Tenant[];
    mutations: "invalid" | "free";
  }

  /** A path segment (URL text) that names nothing: no decoding turns it into a seeded value. */
  function garbageSegment(): fc.Arbitrary<Segment> {
    const seeded = seededTexts();
    return fc
      .oneof(
        {
          arbitrary: hostileString
            .filter((text) => text.length > 0 && text !== "." && text !== "..")
            .map(percentEncode),
          weight: 3,
        },
        { arbitrary: fc.constantFrom(...RAW_TROUBLE), weight: 3 },
        { arbitrary: fc.integer({ min: 300, max: 5000 }).map((length) => "a".repeat(length)), weight: 1 },
        { arbitrary: fc.bigInt({ min: 2n ** 31n, max: 2n ** 80n }).map(String), weight: 1 },
      )
      .filter((text) => !seeded.has(text) && !seeded.has(safeDecode(text)))
      .map((text) => ({ text, garbage: true }));
  }

  /** A seeded value of a named tenant (or a garbage one) for the path parameter `name`. */
  function segmentArbitrary(scenario: Scenario, name: string): fc.Arbitrary<Segment> {
    const valid = [
      ...scenario.named.flatMap((tenant) => tenant.params[name] ?? []),
      ...(name in GLOBAL_PARAMS ? [GLOBAL_PARAMS[name] as string] : []),
    ];
    if (valid.length === 0) return garbageSegment();
    // Mostly valid, so that requests get past routing and lookups into the handlers.
    return fc.oneof(
      {
        arbitrary: fc.constantFrom(...valid).map((text) => ({ text: percentEncode(text), garbage: false })),
        weight: 6,
      },
      { arbitrary: garbageSegment(), weight: 1 },
    );
  }

  /** Plausible values of the API's query parameters (cursors, periods, searches, SCIM filters), valid or nearly. */
  const plausibleQueryValue: fc.Arbitrary<string> = fc
    .constantFrom(
      "",
      "1",
      "0",
      "-1",
      "100",
      "100000",
      "99999999999999999999",
      "1e309",
      "true",
      "1:2:3",
      "0:0:0",
      "9999999999999:-1:1",
      "0:100:0",
      "resolved",
      "unresolved",
      "ignored",
      "active",
      "disabled",
      "is:unresolved",
      "is:assigned level:error",
      "assigned:me level:error !has:release",
      'message:"unterminated',
      "firstSeen:>2026-13-45 times_seen:>1e400",
      "project:-1 id:99999999999999999999",
      "24h",
      "14d",
      "-5m",
      "1000000d",
      "date",
      "new",
      "priority",
      "freq",
      "user",
      'userName eq "x"',
      '((((userName eq "x"',
      'userName eq "\\u0000"',
      'emails[type eq "work" and value co "@"]',
      'displayName sw "a" or not (userName pr)',
      "userName,emails",
      "members",
      "issue.created",
      "production",
      "alpha-api",
    )
    .map(percentEncode);

  const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
    hostileString.map(percentEncode),
    fc.constantFrom(...RAW_TROUBLE),
    fc.integer({ min: 500, max: 3000 }).map((length) => "q".repeat(length)),
  );

  function queryArbitrary(scenario: Scenario, operation: Operation): fc.Arbitrary<string> {
    const key = fc.oneof(
      {
        arbitrary: fc.constantFrom(
          ...operation.queryParams,
          "cursor",
          "per_page",
          "query",
          "filter",
          "startIndex",
          "count",
          "attributes",
          "excludedAttributes",
          "sortBy",
          "id",
          "project",
        ),
        weight: 8,
      },
      { arbitrary: hostileString.map(percentEncode), weight: 1 },
      { arbitrary: fc.constantFrom("%00", "a%00", "%ED%A0%80", "%zz"), weight: 1 },
    );
    const seededValue = fc.constantFrom(
      ...scenario.named.flatMap((tenant) => [...(tenant.params.issue_id ?? []), ...(tenant.params.project_id ?? [])]),
    );
    const value = fc.oneof(
      { arbitrary: plausibleQueryValue, weight: 4 },
      { arbitrary: seededValue, weight: 1 },
      { arbitrary: hostileQueryValue, weight: 2 },
    );
    return fc.oneof(
      { arbitrary: fc.constant(""), weight: 1 },
      {
        arbitrary: fc
          .array(fc.tuple(key, value), { minLength: 1, maxLength: 4 })
          .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&")),
        weight: 2,
      },
    );
  }

  /** Bodies that no endpoint can accept: the request fails before anything is written. */
  function invalidBody(scenario: Scenario, operation: Operation): fc.Arbitrary<string | Uint8Array> {
    const example = () => {
      const value = sampleBody(operation, { ...VALID_BODY_FIELDS, ...scenario.acting.bodyValues });
      return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    };
    // Between plain letters, so that a neighbouring surrogate cannot pair up with it into a valid character.
    const poisoned = fc.constantFrom("\u0000", "\ud800", "\udfff", "\udbff", "\udc00").map((bad) => `a${bad}a`);
    return fc.oneof(
      fc.constantFrom(
        '{"a":',
        "{",
        "[",
        '{"a":1,}',
        "{'a':1}",
        '{"a":undefined}',
        "nul\u0000",
        '{"a":"\\ud800',
        "\u0000",
        '{"a":1}{"b":2}',
      ),
      fc.constantFrom("null", "[]", "42", '"text"', "true", "[{}]", "-0", "1e999"),
      fc
        .integer({ min: 40, max: 20_000 })
        .map((depth) =>
          JSON.stringify({ ...example(), deep: "DEEP" }).replace('"DEEP"', `${"[".repeat(depth)}${"]".repeat(depth)}`),
        ),
      fc
        .tuple(fc.constantFrom(...Object.keys(example()), "extra"), poisoned)
        .map(([field, bad]) => JSON.stringify({ ...example(), [field]: bad })),
      fc.tuple(hostileString, poisoned).map(([key, bad]) => JSON.stringify({ ...example(), [`${key}${bad}`]: 1 })),
      fc.constant(JSON.stringify(nested(200, "object"))),
      // Random bytes that are not JSON (nor blank, which reads as no body at all).
      fc.uint8Array({ minLength: 1, maxLength: 64 }).filter((bytes) => {
        const text = new TextDecoder().decode(bytes);
        try {
          JSON.parse(text);
          return false;
        } catch {
          return text.trim() !== "";
        }
      }),
    );
  }

  /** Any body: the invalid ones, hostile JSON, and the valid example with one field made hostile. */
  function anyBody(scenario: Scenario, operation: Operation): fc.Arbitrary<string | Uint8Array> {
    const example = sampleBody(operation, { ...VALID_BODY_FIELDS, ...scenario.acting.bodyValues });
    const base =
      example && typeof example === "object" && !Array.isArray(example) ? (example as Record<string, unknown>) : {};
    const keys = Object.keys(base);
    const declared = [...new Set([...keys, ...Object.keys(operation.body?.schema.properties ?? {}), "extra"])];
    /** Well-typed values at and past every boundary an id column, a date or a length has. */
    const extreme = fc.constantFrom<unknown>(
      2 ** 31,
      2 ** 53,
      -(2 ** 31) - 1,
      1e308,
      -1,
      0,
      0.5,
      "x".repeat(10_001),
      "9999-12-31T23:59:59Z",
      "+275760-09-13T00:00:00.000Z",
      "0000-01-01T00:00:00Z",
      "2026-02-30T25:61:61Z",
      [],
      {},
      null,
      true,
      Array.from({ length: 200 }, (_, i) => `v${i}`),
    );
    return fc.oneof(
      invalidBody(scenario, operation),
      hostileJson.map((value) => JSON.stringify(value)),
      fc
        .tuple(fc.constantFrom(...keys, "extra"), hostileJson)
        .map(([field, value]) => JSON.stringify({ ...base, [field]: value })),
      fc
        .tuple(fc.constantFrom(...declared), extreme)
        .map(([field, value]) => JSON.stringify({ ...base, [field]: value })),
      fc.constant(JSON.stringify(base)),
      fc.constant("x".repeat(1024 * 1024 + 10)),
    );
  }

  const contentType = fc.constantFrom<string | null>(
    "application/json",
    "application/json",
    "application/scim+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    null,
    "application/json; charset=utf-16",
  );

  function requestArbitrary(scenario: Scenario): fc.Arbitrary<GeneratedRequest> {
    const own = scenario.acting.credentials;
    // Header values are byte strings without controls (fetch refuses others before sending).
    const headerSafe = (text: string) => text.replace(/[^\x20-\x7e\x80-\xff]/g, "\xe9");
    const credentials = fc.oneof(
      { arbitrary: fc.constant(`Bearer ${own.user}`), weight: 8 },
      {
        arbitrary: fc.constantFrom(own.organization, own.installation, own.scim).map((token) => `Bearer ${token}`),
        weight: 3,
      },
      {
        arbitrary: fc.constantFrom<string | null>(
          null,
          "Bearer flu_0000000000000000000000000000000000000000",
          "Bearer not a token",
          "Bearer",
          "Bearer ",
          `bearer ${own.user}`,
          `Bearer  ${own.user}`,
          `Bearer ${own.user} ${own.organization}`,
          `Token ${own.user}`,
          "Basic Zm9vOmJhcg==",
          `Sentry sentry_key=${own.dsnKey}`,
          `Bearer ${own.user.slice(0, -1)}`,
          `Bearer ${own.user}x`,
        ),
        weight: 2,
      },
      { arbitrary: hostileString.map((text) => `Bearer flu_${headerSafe(text)}`), weight: 1 },
      { arbitrary: hostileString.map(headerSafe), weight: 1 },
    );
    // Acting freely, deletions come rarer: each one ends the walk's reach into what it deleted.
    const pickOperation = fc.oneof(
      ...operations.map((candidate) => ({
        arbitrary: fc.constant(candidate),
        weight: scenario.mutations === "free" && candidate.method === "DELETE" ? 1 : 4,
      })),
    );
    return pickOperation.chain((operation) => {
      let segments = fc.tuple(...operation.pathParams.map((name) => segmentArbitrary(scenario, name))) as fc.Arbitrary<
        Segment[]
      >;
      if (scenario.mutations === "invalid" && isMutating(operation) && !operation.body) {
        // Without a body nothing else could make it fail: one path parameter at least is garbage.
        segments = fc
          .tuple(segments, fc.nat({ max: operation.pathParams.length - 1 }), garbageSegment())
          .map(([list, index, garbage]) => list.map((segment, i) => (i === index ? garbage : segment)));
      }
      // One request in twenty uses a method the path does not declare.
      const wrongMethod = fc.nat({ max: 19 }).map((roll) => roll === 0);
      return fc
        .tuple(segments, queryArbitrary(scenario, operation), credentials, wrongMethod)
        .chain(([params, query, authorization, useWrongMethod]) => {
          let index = 0;
          const path = operation.path.replace(/\{[^}]+\}/g, () => (params[index++] as Segment).text);
          const request: GeneratedRequest = { operation, method: operation.method, path, query, authorization };
          const undeclared = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].filter(
            (method) => !declaredMethods.get(operation.path)?.has(method),
          );
          if (useWrongMethod && undeclared.length > 0) {
            // A method the path does not declare: nothing can run, whatever the body.
            return fc.tuple(fc.constantFrom(...undeclared), anyBody(scenario, operation)).map(([method, bytes]) => ({
              ...request,
              method,
              ...(method !== "GET" && method !== "HEAD" && { body: { bytes, contentType: "application/json" } }),
            }));
          }
          if (!isMutating(operation) || !operation.body) return fc.constant(request);
          // A mutation that could succeed (every path parameter valid) gets a body no endpoint accepts.
          const mayAct = scenario.mutations === "free" || params.some((segment) => segment.garbage);
          return fc
            .tuple(mayAct ? anyBody(scenario, operation) : invalidBody(scenario, operation), contentType)
            .map(([bytes, type]) => ({ ...request, body: { bytes, contentType: type } }));
        });
    });
  }

  async function send(request: GeneratedRequest): Promise<{ status: number; contentType: string; text: string }> {
    const headers: Record<string, string> = {
      ...(request.authorization !== null && { Authorization: request.authorization }),
    };
    if (request.body?.contentType) headers["content-type"] = request.body.contentType;
    const response = await fetch(`${server.url}${request.path}${request.query ? `?${request.query}` : ""}`, {
      method: request.method,
      headers,
      body: request.body?.bytes as BodyInit | undefined,
    });
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      text: await response.text(),
    };
  }

  /** The contract for any answer: no 5xx; an error is JSON with a string `detail` (SCIM routes: the SCIM error schema). */
  function checkAnswer(request: GeneratedRequest, answer: { status: number; contentType: string; text: string }) {
    const where = `${request.method} ${request.path}${request.query ? `?${request.query}` : ""} → ${answer.status} ${answer.text.slice(0, 300)}`;
    expect(answer.status, where).toBeLessThan(500);
    if (answer.status < 400 || request.method === "HEAD") return;
    expect(answer.contentType, where).toMatch(/json/);
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    expect(typeof body.detail, where).toBe("string");
    if (request.operation.scim) {
      expect(body.schemas, where).toEqual([SCIM_ERROR_SCHEMA]);
      expect(body.status, where).toBe(String(answer.status));
    }
  }

  it(
    "any operation with hostile paths, queries, bodies and credentials: never a 5xx, every error JSON with a detail",
    async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary({ acting: a, named: [a, b], mutations: "invalid" }), async (request) => {
          runs++;
          checkAnswer(request, await send(request));
        }),
        { numRuns: UNBOUNDED_RUNS, interruptAfterTimeLimit: WALK_MS, ...replay },
      );
      process.stderr.write(`fuzz: ${runs} requests over ${operations.length} operations (FUZZ_SEED=${SEED})\n`);
      expect(runs).toBeGreaterThan(50);
      // Every mutation was invalid: nothing at all changed.
      expect(await snapshotTables(instance)).toEqual(before);
    },
    WALK_MS * 4,
  );

  /**
   * Requests sent at the same time: one alone, the same one two to four times (two creations of
   * one slug, two deletions of one row race each other), or a few different ones.
   */
  function concurrently(request: fc.Arbitrary<GeneratedRequest>): fc.Arbitrary<GeneratedRequest[]> {
    return fc.oneof(
      request.map((one) => [one]),
      fc.tuple(request, fc.integer({ min: 2, max: 4 })).map(([one, times]) => Array.from({ length: times }, () => one)),
      fc.array(request, { minLength: 2, maxLength: 4 }),
    );
  }

  it(
    "a sacrificial organization's own ids with hostile but well-formed bodies, some sent concurrently: never a 5xx, every error JSON with a detail",
    async () => {
      c = await seedTenant(instance, server.url, "charlie");
      let count = 0;
      await fc.assert(
        fc.asyncProperty(
          concurrently(requestArbitrary({ acting: c, named: [c], mutations: "free" })),
          async (batch) => {
            count += batch.length;
            const answers = await Promise.all(batch.map(send));
            batch.forEach((request, i) => checkAnswer(request, answers[i] as Awaited<ReturnType<typeof send>>));
          },
        ),
        { numRuns: UNBOUNDED_RUNS, interruptAfterTimeLimit: FREE_MS, ...replay },
      );
      expect(count).toBeGreaterThan(20);
    },
    FREE_MS * 4,
  );

  describe("ingest", () => {
    const db = () => instance.faultline.container.resolve(tokens.Db);
    const newEventId = () => randomUUID().replaceAll("-", "");
    const envelopeOf = (eventId: string, eventText: string) =>
      [JSON.stringify({ event_id: eventId }), '{"type":"event"}', eventText].join("\n");

    it(
      "malformed envelopes and events, compressed or not, and decompression bombs → 4xx with a detail, never a 5xx",
      async () => {
        const malformed = fc.oneof(
          hostileString.filter((text) => {
            try {
              JSON.parse(text.split("\n")[0] ?? "");
              return false;
            } catch {
              return true;
            }
          }),
          fc.constantFrom(
            "{",
            "\u0000",
            '{"event_id":"x"}\n{"type":',
            '{}\n{"type":"event","length":99999}\nshort',
            '{}\n["not an object"]\n{}',
            '{}\n{"type":"event"}\n{"a":',
            '{}\n{"type":"event"}\n[1,2]',
          ),
          fc
            .tuple(hostileJson, hostileJson)
            .map(([header, item]) => `${JSON.stringify(header)}\n{"type":"event"}\n${JSON.stringify(item)}garbage`),
          fc.integer({ min: 2_000, max: 20_000 }).map((depth) => `{}\n{"type":"event"}\n${"[".repeat(depth)}`),
        );
        const target = fc.constantFrom("envelope", "store");
        const encoding = fc.constantFrom<string | null>(null, null, null, "gzip", "deflate", "br", "zstd");
        // Claimed encodings are applied for real half the time (malformed content, well compressed),
        // and now and then the body is a bomb: 64 MiB of zeros gzipped to some 64 KiB.
        const compression = fc.constantFrom("as claimed", "not applied", "bomb");
        const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
        const compress = (text: string, contentEncoding: string): Uint8Array | string =>
          contentEncoding === "gzip"
            ? gzipSync(text)
            : contentEncoding === "deflate"
              ? deflateSync(text)
              : contentEncoding === "br"
                ? brotliCompressSync(text)
                : text;
        await fc.assert(
          fc.asyncProperty(malformed, target, encoding, compression, async (text, endpoint, contentEncoding, how) => {
            // A body that happens to be one JSON object is a (possibly empty) event for /store/: not malformed there.
            fc.pre(!(endpoint === "store" && isJsonObject(text)));
            const claimed = how === "bomb" ? "gzip" : contentEncoding;
            const headers: Record<string, string> = claimed ? { "content-encoding": claimed } : {};
            const body = how === "bomb" ? bomb : claimed && how === "as claimed" ? compress(text, claimed) : text;
            const response = await fetch(`${server.url}/api/${ingest.id}/${endpoint}/?sentry_key=${ingest.key}`, {
              method: "POST",
              headers,
              body: body as BodyInit,
            });
            const answer = await response.text();
            const where = `${endpoint} ${claimed ?? ""} (${how}) ${JSON.stringify(text.slice(0, 200))} → ${response.status} ${answer.slice(0, 200)}`;
            expectClientError(response.status, answer, where);
          }),
          { numRuns: UNBOUNDED_RUNS, interruptAfterTimeLimit: INGEST_MS, ...replay },
        );
      },
      INGEST_MS * 4,
    );

    it(
      "hostile project ids, DSN keys and auth headers → 4xx with a detail (the right pair alone → 200)",
      async () => {
        const projectText = fc.oneof(
          fc.constantFrom(ingest.id, a.params.project_id?.[0] as string, b.params.project_id?.[0] as string),
          garbageSegment().map((segment) => segment.text),
        );
        const key = fc.oneof(
          fc.constantFrom(ingest.key, b.credentials.dsnKey, "0".repeat(32), "", "%00", "%zz", "%ED%A0%80"),
          hostileString.map((text) => text.replace(/[^\x20-\x7e]/g, "x")),
        );
        const place = fc.constantFrom("query", "header", "both", "none");
        await fc.assert(
          fc.asyncProperty(projectText, key, place, async (project, dsnKey, where) => {
            // B's own pair would be a valid request, adding to B's seeded issue.
            fc.pre(!(project === b.params.project_id?.[0] && dsnKey === b.credentials.dsnKey));
            const eventId = newEventId();
            const body = envelopeOf(eventId, JSON.stringify({ ...errorEvent(), event_id: eventId }));
            const headers: Record<string, string> =
              where === "header" || where === "both"
                ? { "X-Sentry-Auth": `Sentry sentry_version=7, sentry_key=${dsnKey}` }
                : {};
            const query =
              where === "query" || where === "both"
                ? `?sentry_key=${dsnKey.includes("%") ? dsnKey : encodeURIComponent(dsnKey)}`
                : "";
            const response = await fetch(`${server.url}/api/${project}/envelope/${query}`, {
              method: "POST",
              headers,
              body,
            });
            const answer = await response.text();
            const context = `${project.slice(0, 80)} ${where} ${JSON.stringify(dsnKey)} → ${response.status} ${answer.slice(0, 200)}`;
            if (project === ingest.id && dsnKey === ingest.key && where !== "none") {
              expect(response.status, context).toBe(200);
              return;
            }
            expectClientError(response.status, answer, context);
          }),
          { numRuns: UNBOUNDED_RUNS, interruptAfterTimeLimit: INGEST_MS, ...replay },
        );
      },
      INGEST_MS * 4,
    );

    it(
      "valid envelopes of hostile events (NUL, lone surrogates, deep nesting, extreme timestamps) → 200 and stored",
      async () => {
        const timestamp = fc.oneof(
          fc.constantFrom<unknown>(
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "+275760-09-13T00:00:00Z",
            "garbage",
            "",
            -1e20,
            1e20,
            0,
            -62_135_596_800,
            253_402_300_800,
            1e308,
            "1e400",
            null,
            true,
            {},
          ),
          hostileString,
        );
        const event = fc.record({
          message: hostileString,
          level: fc.oneof(hostileString, fc.constantFrom("error", "fatal")),
          environment: hostileString,
          release: hostileString,
          timestamp,
          tags: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
          extra: fc.dictionary(hostileString, hostileJson, { maxKeys: 3 }),
          deep: fc.integer({ min: 0, max: 3_000 }),
        });
        await fc.assert(
          fc.asyncProperty(event, fc.constantFrom("envelope", "store"), async ({ deep, ...fields }, endpoint) => {
            const eventId = newEventId();
            const payload = JSON.stringify({
              ...errorEvent(),
              ...fields,
              event_id: eventId,
              extra: { ...fields.extra, deep: "DEEP" },
            }).replace('"DEEP"', `${'{"a":'.repeat(deep)}1${"}".repeat(deep)}`);
            const body = endpoint === "store" ? payload : envelopeOf(eventId, payload);
            const response = await fetch(`${server.url}/api/${ingest.id}/${endpoint}/?sentry_key=${ingest.key}`, {
              method: "POST",
              body,
            });
            const answer = await response.text();
            expect(response.status, `${endpoint} ${payload.slice(0, 300)} → ${answer}`).toBe(200);
            await digestQueued(instance.faultline);
            const stored = await db()
              .selectFrom("events")
              .select("event_id")
              .where("event_id", "=", eventId)
              .executeTakeFirst();
            expect(stored, `event ${eventId} acknowledged but not stored: ${payload.slice(0, 300)}`).toBeDefined();
          }),
          { numRuns: UNBOUNDED_RUNS, interruptAfterTimeLimit: INGEST_MS, ...replay },
        );
      },
      INGEST_MS * 4,
    );
  });

  it("afterwards the server still answers and every seeded row is intact", async () => {
    const response = await fetch(`${server.url}/api/0/organizations/alpha/`, { headers: bearer(a.credentials.user) });
    expect(response.status).toBe(200);
    // The ingest properties added events (and issues…) to their own project, whose short-id
    // counter moved; nothing seeded changed.
    const after = await snapshotTables(instance);
    const ingestProject = (table: string, row: string) =>
      table === "projects" && String((JSON.parse(row) as { id: unknown }).id) === ingest.id;
    const missing = Object.entries(before).flatMap(([table, rows]) =>
      rows.filter((row) => !after[table]?.includes(row) && !ingestProject(table, row)).map((row) => `${table}: ${row}`),
    );
    expect(missing).toEqual([]);
  });
});
