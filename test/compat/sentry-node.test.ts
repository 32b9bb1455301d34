import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";
import * as Sentry from "@sentry/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler, type HasHandler } from "../../adapters/node/index.js";
import { type FaultlinePlugin, tokens } from "../../src/index.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";
import { ingestPlugin } from "../../src/plugins/ingest/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";

/** Until `ingest` is a first-party plugin, add it here (adding it twice would be an id conflict). */
const ingestUnlessBuiltIn: FaultlinePlugin[] = (firstPartyPlugins as readonly FaultlinePlugin[]).some(
  (plugin) => plugin.id === "ingest",
)
  ? []
  : [ingestPlugin];

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const MOUNT = "/faultline";

/** One request the SDK made, as the server saw it. */
interface Exchange {
  path: string;
  status: number;
  encoding: string | null;
  itemTypes: string[];
  reply: unknown;
}

/** @sentry/node sends no `length`, so item headers are every other line after the envelope header. */
function itemTypesOf(body: Buffer, encoding: string | null): string[] {
  const text = (encoding === "gzip" ? gunzipSync(body) : body).toString("utf8");
  return text
    .split("\n")
    .filter((_, index) => index % 2 === 1)
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** Wraps the instance's handler to log every exchange; the real node adapter still does the I/O. */
function recording(inner: HasHandler, log: Exchange[]): HasHandler {
  return {
    handler: async (request, options) => {
      const copy = request.clone();
      const response = await inner.handler(request, options);
      const encoding = request.headers.get("content-encoding");
      log.push({
        path: new URL(request.url).pathname,
        status: response.status,
        encoding,
        itemTypes: itemTypesOf(Buffer.from(await copy.arrayBuffer()), encoding),
        reply: await response
          .clone()
          .json()
          .catch(() => null),
      });
      return response;
    },
  };
}

describe("the real @sentry/node 11 SDK against a live Faultline", () => {
  // Frozen mid-minute so the rate-limit window (and its Retry-After) is deterministic.
  const now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 15_000);
  const exchanges: Exchange[] = [];
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;

  /** The DSN as a client discovers it: from the keys endpoint, built from the request's origin and mount. */
  async function dsnOf(project: string): Promise<string> {
    const response = await fetch(`${server.url}${MOUNT}/api/0/projects/acme/${project}/keys/`, {
      headers: bearer(seed.allScopesToken),
    });
    expect(response.status).toBe(200);
    const [key] = (await response.json()) as Array<{ dsn: { public: string } }>;
    return key?.dsn.public as string;
  }

  function initSentry(dsn: string) {
    Sentry.init({
      dsn,
      defaultIntegrations: false,
      release: "compat@1.0.0",
      environment: "compat",
      beforeSend: (event) => (event.message === "dropped by beforeSend" ? null : event),
    });
  }

  const envelopesTo = (projectId: string) =>
    exchanges.filter((exchange) => exchange.path === `${MOUNT}/api/${projectId}/envelope/`);

  beforeAll(async () => {
    instance = await createTestInstance({
      clock: { now: () => now },
      worker: false,
      logger: quiet,
      plugins: ingestUnlessBuiltIn,
    });
    seed = await seedOrganization(instance.faultline, "acme");
    server = await listen(createServer(toNodeHandler(recording(instance.faultline, exchanges), { basePath: MOUNT })));
  });
  afterAll(async () => {
    await Sentry.close(500);
    await server?.close();
    await instance?.close();
  });

  /** Acknowledged events are grouped by the digest (queued ingest); this instance runs no worker. */
  const digest = () => instance.faultline.worker.runDue("ingest.digest");

  describe("errors and messages", () => {
    beforeAll(async () => initSentry(await dsnOf("web")));
    afterAll(() => Sentry.close(500));

    it("hands out a DSN under the host's mount prefix", async () => {
      expect(await dsnOf("web")).toMatch(
        new RegExp(`^http://[0-9a-f]{32}@127\\.0\\.0\\.1:\\d+${MOUNT}/${seed.project.id}$`),
      );
    });

    it("delivers captureException and captureMessage, answering the SDK's event ids", async () => {
      const exceptionId = Sentry.captureException(new TypeError("compat boom"));
      const messageId = Sentry.captureMessage("compat message", "warning");
      expect(await Sentry.flush(5000)).toBe(true);
      await digest();
      const events = envelopesTo(seed.project.id).filter((exchange) => exchange.itemTypes.includes("event"));
      expect(events.map((exchange) => [exchange.status, exchange.reply])).toEqual(
        expect.arrayContaining([
          [200, { id: exceptionId }],
          [200, { id: messageId }],
        ]),
      );
      const stored = await instance.faultline.container
        .resolve(tokens.Db)
        .selectFrom("events")
        .select(["event_id", "title", "level", "release", "environment"])
        .where("event_id", "in", [exceptionId, messageId])
        .orderBy("level")
        .execute();
      // The SDK attaches a synthetic, typeless exception to messages, so their title is the issues plugin's call (§6.4).
      expect(stored).toEqual([
        {
          event_id: exceptionId,
          title: "TypeError: compat boom",
          level: "error",
          release: "compat@1.0.0",
          environment: "compat",
        },
        {
          event_id: messageId,
          title: expect.stringContaining("compat message"),
          level: "warning",
          release: "compat@1.0.0",
          environment: "compat",
        },
      ]);
    });

    it("lists the issues those events created", async () => {
      const response = await fetch(`${server.url}${MOUNT}/api/0/organizations/acme/issues/?query=`, {
        headers: bearer(seed.allScopesToken),
      });
      expect(response.status).toBe(200);
      const titles = ((await response.json()) as Array<{ title: string }>).map((issue) => issue.title);
      expect(titles).toContain("TypeError: compat boom");
      expect(titles.some((title) => title.includes("compat message"))).toBe(true);
    });

    it("groups the same stack into one issue, a different stack into another, and respects a custom fingerprint", async () => {
      const failSame = (user: string) => {
        Sentry.withScope((scope) => {
          scope.setUser({ id: user });
          Sentry.captureException(new RangeError(`same place ${user}`));
        });
      };
      const failElsewhere = () => Sentry.captureException(new RangeError("same place elsewhere"));
      for (const user of ["u1", "u2", "u1"]) failSame(user);
      failElsewhere();
      Sentry.withScope((scope) => {
        scope.setFingerprint(["compat-custom"]);
        Sentry.captureException(new RangeError("custom one"));
        Sentry.captureException(new SyntaxError("custom two"));
      });
      expect(await Sentry.flush(5000)).toBe(true);
      await digest();
      const all = (await (
        await fetch(`${server.url}${MOUNT}/api/0/organizations/acme/issues/?query=`, {
          headers: bearer(seed.allScopesToken),
        })
      ).json()) as Array<Record<string, unknown>>;
      const same = all.filter((issue) => String(issue.title).startsWith("RangeError: same place u"));
      expect(same).toHaveLength(1);
      expect(same[0]).toMatchObject({
        count: "3",
        userCount: 2,
        level: "error",
        shortId: expect.stringMatching(/^WEB-[0-9A-Z]+$/),
        culprit: expect.stringMatching(/\(sentry-node\.test\.ts\)$/),
      });
      expect(all.filter((issue) => issue.title === "RangeError: same place elsewhere")).toHaveLength(1);
      const custom = all.filter((issue) =>
        ["RangeError: custom one", "SyntaxError: custom two"].includes(String(issue.title)),
      );
      expect(custom).toHaveLength(1);
      expect(custom[0]?.count).toBe("2");
    });

    it("delivers an event over 32 KB, which the SDK gzips", async () => {
      const id = Sentry.captureException(new Error("big payload"), { extra: { blob: "y".repeat(64 * 1024) } });
      await Sentry.flush(5000);
      const exchange = envelopesTo(seed.project.id).find(
        (candidate) => (candidate.reply as { id?: string } | null)?.id === id,
      );
      expect(exchange).toMatchObject({ status: 200, encoding: "gzip", itemTypes: ["event"] });
    });

    it("accepts the SDK's session and client_report envelopes with 200 {}", async () => {
      Sentry.startSession();
      Sentry.endSession();
      Sentry.captureMessage("dropped by beforeSend");
      await Sentry.flush(5000);
      const others = envelopesTo(seed.project.id).filter((exchange) => !exchange.itemTypes.includes("event"));
      expect(others.flatMap((exchange) => exchange.itemTypes)).toEqual(
        expect.arrayContaining(["session", "client_report"]),
      );
      for (const exchange of others) expect([exchange.status, exchange.reply]).toEqual([200, {}]);
    });
  });

  describe("rate limits", () => {
    let limitedId: string;

    beforeAll(async () => {
      const limited = await instance.faultline.api.projects.create({
        organization: "acme",
        slug: "limited",
        platform: "node",
      });
      limitedId = limited.id;
      await instance.faultline.container
        .resolve(tokens.Db)
        .updateTable("project_keys")
        .set({ rate_limit_per_minute: 1 })
        .where("project_id", "=", Number(limitedId))
        .execute();
      initSentry(await dsnOf("limited"));
    });
    afterAll(() => Sentry.close(500));

    it("gets 429 with X-Sentry-Rate-Limits, which the SDK honours by holding back further errors", async () => {
      for (const message of ["first", "second", "third"]) {
        Sentry.captureException(new Error(message));
        await Sentry.flush(5000);
      }
      const events = envelopesTo(limitedId).filter((exchange) => exchange.itemTypes.includes("event"));
      expect(events.map((exchange) => [exchange.status, exchange.reply])).toEqual([
        [200, { id: expect.stringMatching(/^[0-9a-f]{32}$/) }],
        [429, { detail: "Rate limit exceeded; retry after 45 seconds" }],
      ]);
      // The third error never left the SDK; it reports the drop in a client report instead.
      expect(
        envelopesTo(limitedId).some(
          (exchange) => exchange.itemTypes.includes("client_report") && exchange.status === 200,
        ),
      ).toBe(true);
    });
  });
});
