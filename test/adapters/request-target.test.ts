import { createServer, type Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { toFastifyPlugin } from "../../adapters/fastify/index.js";
import { toNextJsHandler } from "../../adapters/next/index.js";
import { type HasHandler, toNodeHandler } from "../../adapters/node/index.js";
import type { FaultlineHandler } from "../../src/http/pipeline.js";
import { HANDLER_LOGGER, type Logger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { rawRequest, type RawAnswer } from "../helpers/raw-http.js";
import { seedOrganization } from "../helpers/seed.js";
import { listen, type RunningServer } from "../helpers/server.js";

/**
 * No request may end the host (#27). Request targets and Host headers that `fetch` cannot send —
 * a malformed Host, absolute-form and asterisk-form targets, a URL over 64 KB — go over raw
 * sockets to a real server of every framework Faultline mounts in; after each, the same server
 * must still answer a normal request, and the process must have seen no unhandled rejection.
 */

/** Large enough that a 64 KB URL reaches the framework (Node's default, 16 KiB, answers 431 itself). */
const LARGE_HEADERS = 256 * 1024;
const LONG_QUERY = `?q=${"a".repeat(70_000)}`;

let instance: TestInstance;
let token: string;
const closers: Array<() => Promise<void>> = [];
const escaped: unknown[] = [];
const recordEscape = (error: unknown) => void escaped.push(error);

beforeAll(async () => {
  process.on("unhandledRejection", recordEscape);
  process.on("uncaughtException", recordEscape);
  instance = await createTestInstance({ announce: false, worker: false });
  token = (await seedOrganization(instance.faultline, "acme")).allScopesToken;
});
afterAll(async () => {
  process.off("unhandledRejection", recordEscape);
  process.off("uncaughtException", recordEscape);
  for (const close of closers) await close();
  await instance?.close();
});

async function serveNode(server: Server): Promise<string> {
  const running: RunningServer = await listen(server);
  closers.push(running.close);
  return running.url;
}

type HostileId =
  | "bad-host"
  | "host-with-path"
  | "host-with-credentials"
  | "bad-forwarded-host"
  | "absolute-form"
  | "asterisk-form"
  | "absolute-credentials"
  | "absolute-ftp"
  | "no-path"
  | "long-url";

/** A host serving Faultline under `prefix`. */
interface Host {
  name: string;
  prefix: string;
  start(): Promise<string>;
  /**
   * What the framework (or Node's parser) answers itself, before Faultline sees the request: the
   * status, by hostile request. Every other hostile request reaches Faultline and gets its answer.
   */
  answersItself: Partial<Record<HostileId, number>>;
}

/** Node's HTTP parser refuses a target that is neither a path nor a URL (400, empty body) before any listener runs. */
const NODE_PARSER = { "no-path": 400 } as const;

const HOSTS: Host[] = [
  {
    name: "node:http (toNodeHandler, trustProxy)",
    prefix: "",
    answersItself: NODE_PARSER,
    start: () =>
      serveNode(
        createServer({ maxHeaderSize: LARGE_HEADERS }, toNodeHandler(instance.faultline, { trustProxy: true })),
      ),
  },
  {
    name: "Express 5 (toExpressHandler, trust proxy loopback)",
    prefix: "/faultline",
    // `*` is not under the mount path: Express's own 404.
    answersItself: { ...NODE_PARSER, "asterisk-form": 404 },
    start: () => {
      const app = express();
      app.set("trust proxy", "loopback");
      app.use("/faultline", toExpressHandler(instance.faultline));
      return serveNode(createServer({ maxHeaderSize: LARGE_HEADERS }, app));
    },
  },
  {
    name: "Fastify 5 (toFastifyPlugin, trustProxy)",
    prefix: "/faultline",
    // The plugin builds the origin from Host (Fastify's trustProxy feeds request.ip only), so a bad
    // X-Forwarded-Host is not read: 200. Fastify routes absolute-form by the whole target: its 404.
    answersItself: { ...NODE_PARSER, "bad-forwarded-host": 200, "asterisk-form": 404, "absolute-ftp": 404 },
    start: async () => {
      const app: FastifyInstance = Fastify({ trustProxy: true, http: { maxHeaderSize: LARGE_HEADERS } });
      closers.push(() => app.close());
      await app.register(toFastifyPlugin(instance.faultline), { prefix: "/faultline" });
      return app.listen({ port: 0, host: "127.0.0.1" });
    },
  },
  {
    name: "Hono (@hono/node-server, faultline.handler)",
    prefix: "/faultline",
    // @hono/node-server builds the Request itself: a Host or target that makes no URL is its 400
    // (empty body); it reads no X-Forwarded-Host, and drops the credentials of an absolute target.
    answersItself: {
      ...NODE_PARSER,
      "bad-host": 400,
      "host-with-path": 400,
      "host-with-credentials": 400,
      "bad-forwarded-host": 200,
      "asterisk-form": 400,
      "absolute-credentials": 200,
      "absolute-ftp": 400,
    },
    start: () => {
      const app = new Hono();
      app.all("/faultline/*", (c) => instance.faultline.handler(c.req.raw, { basePath: "/faultline" }));
      return serveNode(
        createAdaptorServer({ fetch: app.fetch, serverOptions: { maxHeaderSize: LARGE_HEADERS } }) as Server,
      );
    },
  },
];

/** A hostile request: its head (given the prefix and the server's own `host:port`), and Faultline's answer to it. */
interface Hostile {
  id: HostileId;
  name: string;
  head(prefix: string, authority: string): string;
  check(answer: RawAnswer): void;
}

const organization = (prefix: string) => `${prefix}/api/0/organizations/acme/`;
const withToken = (line: string, hostHeader: string) =>
  `${line}\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${token}`;

/** Faultline's error: the status, and a JSON `{detail}` naming `what`. */
function expectError(answer: RawAnswer, status: number, what: RegExp): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  expect((JSON.parse(answer.body) as { detail: string }).detail).toMatch(what);
}

const expectOrganization = (answer: RawAnswer) =>
  expect([answer.status, JSON.parse(answer.body || "{}").slug]).toEqual([200, "acme"]);

const HOSTILE: Hostile[] = [
  {
    id: "bad-host",
    name: "a Host with a space (Host: exa mple.com)",
    head: (prefix) => withToken(`GET ${organization(prefix)} HTTP/1.1`, "exa mple.com"),
    check: (answer) => expectError(answer, 400, /^Invalid Host header: "exa mple\.com"/),
  },
  {
    id: "host-with-path",
    name: "a Host carrying a path (Host: evil.example/x?)",
    head: (prefix) => withToken(`GET ${organization(prefix)} HTTP/1.1`, "evil.example/x?"),
    check: (answer) => expectError(answer, 400, /^Invalid Host header/),
  },
  {
    id: "host-with-credentials",
    name: "a Host carrying credentials (Host: user@evil.example)",
    head: (prefix) => withToken(`GET ${organization(prefix)} HTTP/1.1`, "user@evil.example"),
    check: (answer) => expectError(answer, 400, /^Invalid Host header/),
  },
  {
    id: "bad-forwarded-host",
    name: "a malformed X-Forwarded-Host from the trusted proxy",
    head: (prefix, authority) =>
      `${withToken(`GET ${organization(prefix)} HTTP/1.1`, authority)}\r\nX-Forwarded-Host: exa mple.com`,
    check: (answer) => expectError(answer, 400, /^Invalid X-Forwarded-Host header: "exa mple\.com"/),
  },
  {
    id: "absolute-form",
    name: "an absolute-form target (GET http://host/… HTTP/1.1): routed by its path",
    head: (prefix, authority) => withToken(`GET http://${authority}${organization(prefix)} HTTP/1.1`, authority),
    check: expectOrganization,
  },
  {
    id: "asterisk-form",
    name: "an asterisk-form target (OPTIONS * HTTP/1.1)",
    head: (_prefix, authority) => `OPTIONS * HTTP/1.1\r\nHost: ${authority}`,
    check: (answer) => expectError(answer, 400, /asterisk-form/),
  },
  {
    id: "absolute-credentials",
    name: "an absolute-form target with credentials (GET http://user:secret@host/…)",
    head: (prefix, authority) =>
      withToken(`GET http://user:secret@${authority}${organization(prefix)} HTTP/1.1`, authority),
    check: (answer) => {
      expectError(answer, 400, /credentials/);
      expect(answer.body).not.toContain("secret");
    },
  },
  {
    id: "absolute-ftp",
    name: "an absolute-form target of another scheme (GET ftp://host/…)",
    head: (prefix, authority) => withToken(`GET ftp://${authority}${organization(prefix)} HTTP/1.1`, authority),
    check: (answer) => expectError(answer, 400, /^Invalid request target "ftp:/),
  },
  {
    id: "no-path",
    name: "a target that is neither a path nor a URL (GET x)",
    head: (_prefix, authority) => withToken("GET x HTTP/1.1", authority),
    check: (answer) => expectError(answer, 400, /^Invalid request target "x"/),
  },
  {
    id: "long-url",
    name: "a URL over 64 KB (the server allows large headers, so it reaches the framework)",
    head: (prefix, authority) => withToken(`GET ${organization(prefix)}${LONG_QUERY} HTTP/1.1`, authority),
    check: (answer) => expectError(answer, 414, /^Request URI too long/),
  },
];

describe.each(HOSTS)("$name", (host) => {
  let origin: string;
  let authority: string;
  beforeAll(async () => {
    origin = await host.start();
    authority = new URL(origin).host;
  });

  const expectAlive = async () => {
    const answer = await rawRequest(origin, withToken(`GET ${organization(host.prefix)} HTTP/1.1`, authority));
    expect([answer.status, JSON.parse(answer.body || "{}").slug]).toEqual([200, "acme"]);
  };

  it.each(HOSTILE)("$name: answered, and the host answers afterwards", async (hostile) => {
    const escapedBefore = escaped.length;
    const answer = await rawRequest(origin, hostile.head(host.prefix, authority), 5_000);
    expect(answer.outcome, `no answer; escaped: ${String(escaped[0])}`).toBe("answered");
    const itsOwn = host.answersItself[hostile.id];
    if (itsOwn === undefined) hostile.check(answer);
    else expect(answer.status, answer.body).toBe(itsOwn);
    await expectAlive();
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped.slice(escapedBefore)).toEqual([]);
  });
});

describe("node:http with Node's default header limit", () => {
  it("a URL over 64 KB is answered 431 by Node itself, and the host answers afterwards", async () => {
    const escapedBefore = escaped.length;
    const origin = await serveNode(createServer(toNodeHandler(instance.faultline)));
    const authority = new URL(origin).host;
    const answer = await rawRequest(origin, withToken(`GET ${organization("")}${LONG_QUERY} HTTP/1.1`, authority));
    expect(answer.status).toBe(431);
    const alive = await rawRequest(origin, withToken(`GET ${organization("")} HTTP/1.1`, authority));
    expect(alive.status).toBe(200);
    expect(escaped.slice(escapedBefore)).toEqual([]);
  });
});

describe("Next.js route handlers (toNextJsHandler): the origin comes from X-Forwarded-Host", () => {
  const { GET } = toNextJsHandler(() => instance.faultline);
  const call = (headers: Record<string, string>) =>
    GET(
      new Request("http://localhost:3000/api/faultline/api/0/organizations/acme/", {
        headers: { Authorization: `Bearer ${token}`, ...headers },
      }),
    );

  it.each(["exa mple.com", "evil.example/x?", "user@evil.example"])(
    "a malformed X-Forwarded-Host (%s) is a 400 naming it",
    async (forwarded) => {
      const response = await call({ "X-Forwarded-Host": forwarded });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/X-Forwarded-Host/);
    },
  );

  it("a malformed X-Forwarded-Proto is a 400 naming it", async () => {
    const response = await call({ "X-Forwarded-Host": "errors.example.com", "X-Forwarded-Proto": "javascript" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/X-Forwarded-Proto/);
  });

  it("a well-formed one still names the origin", async () => {
    const response = await call({ "X-Forwarded-Host": "errors.example.com:8443", "X-Forwarded-Proto": "https" });
    expect(response.status).toBe(200);
  });
});

describe("node:http (toNodeHandler): an error while serving, outside the pipeline", () => {
  /** A host's own wrapper around Faultline (HasHandler is all toNodeHandler needs), logging to `lines`. */
  function wrapper(serve: () => Promise<Response>, lines: string[]): HasHandler {
    const logger: Logger = {
      debug() {},
      info() {},
      warn() {},
      error: (obj, msg) => void lines.push(`${msg ?? ""} ${String((obj as { err?: unknown }).err)}`),
    };
    return { handler: Object.assign(serve, { [HANDLER_LOGGER]: logger }) as FaultlineHandler };
  }

  /** A body that sends `chunks` pieces, then fails (a file or upstream gone mid-reply). */
  function failingBody(chunks: number): ReadableStream<Uint8Array> {
    let sent = 0;
    return new ReadableStream({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
        else controller.error(new Error("the source went away"));
      },
    });
  }

  it("a handler that throws is answered 500 with a JSON detail and logged, and the host answers afterwards", async () => {
    const escapedBefore = escaped.length;
    const lines: string[] = [];
    let calls = 0;
    const origin = await serveNode(
      createServer(
        toNodeHandler(
          wrapper(async () => {
            if (calls++ === 0) throw new Error("wrapper broke");
            return new Response("fine");
          }, lines),
        ),
      ),
    );
    const answer = await rawRequest(origin, `GET /x HTTP/1.1\r\nHost: ${new URL(origin).host}`);
    expectError(answer, 500, /^Internal Error$/);
    expect(lines).toEqual([expect.stringContaining("wrapper broke")]);
    expect((await rawRequest(origin, `GET /x HTTP/1.1\r\nHost: ${new URL(origin).host}`)).body).toBe("fine");
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped.slice(escapedBefore)).toEqual([]);
  });

  it("a body that fails after the reply began closes the connection (the client sees a cut reply) and is logged", async () => {
    const escapedBefore = escaped.length;
    const lines: string[] = [];
    const origin = await serveNode(
      createServer(toNodeHandler(wrapper(async () => new Response(failingBody(3)), lines))),
    );
    const answer = await rawRequest(origin, `GET /x HTTP/1.1\r\nHost: ${new URL(origin).host}`);
    // Whatever reached the client before the close (the head, some chunks, or nothing), it is not a whole reply nor a 500.
    expect([answer.status === 500, answer.complete]).toEqual([false, false]);
    expect(lines).toEqual([expect.stringContaining("the source went away")]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped.slice(escapedBefore)).toEqual([]);
  });
});
