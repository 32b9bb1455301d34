import { createServer, request as httpRequest } from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler, keepRawBody } from "../../adapters/express/index.js";
import { defineEndpoint, definePlugin } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { listen, type RunningServer } from "../helpers/server.js";
import { envelope, type MountedTarget, requestSuite } from "./suite.js";

const MiB = 1024 * 1024;

/** A host plugin with what adapters get wrong: repeated headers, big streamed bodies both ways. */
const trapsPlugin = definePlugin({
  id: "adapter-traps",
  endpoints: [
    defineEndpoint({
      method: "GET",
      path: "/traps/headers/",
      operationId: "traps.headers",
      auth: "none",
      handler: () => {
        const headers = new Headers({ "Content-Type": "text/plain" });
        headers.append("Set-Cookie", "a=1; Path=/");
        headers.append("Set-Cookie", "b=2; Path=/");
        headers.append("Link", '</one>; rel="one"');
        headers.append("Link", '</two>; rel="two"');
        return new Response("ok", { headers });
      },
    }),
    defineEndpoint({
      method: "GET",
      path: "/traps/json-headers/",
      operationId: "traps.jsonHeaders",
      auth: "none",
      // A reply of plain data: it goes out on the wire path (no Response object), headers and all.
      handler: () => ({
        body: { ok: true },
        headers: [
          ["Set-Cookie", "a=1; Path=/"],
          ["Set-Cookie", "b=2; Path=/"],
          ["Link", '</one>; rel="one"'],
          ["Link", '</two>; rel="two"'],
        ],
      }),
    }),
    defineEndpoint({
      method: "GET",
      path: "/traps/stream/",
      operationId: "traps.stream",
      auth: "none",
      handler: () => {
        let sent = 0;
        const chunk = new Uint8Array(64 * 1024).fill(120);
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= 8 * MiB) return controller.close();
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          },
        });
        return new Response(body, { headers: { "Content-Type": "application/octet-stream" } });
      },
    }),
    defineEndpoint({
      method: "POST",
      path: "/traps/upload/",
      operationId: "traps.upload",
      auth: "none",
      rawBody: true,
      bodyLimit: 16 * MiB,
      handler: ({ rawBody }) => ({ body: { bytes: rawBody?.byteLength ?? 0 } }),
    }),
  ],
});

let instance: TestInstance<[typeof trapsPlugin]>;
/** Warnings the instance logged, as text (the consumed-body warning is asserted once). */
const warnings: string[] = [];
const recordingLogger = {
  debug() {},
  info() {},
  error() {},
  warn: (obj: object | string, msg?: string) => void warnings.push(`${msg ?? ""} ${JSON.stringify(obj)}`),
};
let seed: Awaited<ReturnType<typeof seedOrganization>>;
const servers: RunningServer[] = [];

async function serve(app: express.Express): Promise<string> {
  const server = await listen(createServer(app));
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  instance = await createTestInstance({
    announce: false,
    worker: false,
    plugins: [trapsPlugin],
    logger: recordingLogger,
  });
  seed = await seedOrganization(instance.faultline, "acme");
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await instance?.close();
});

function mounted(build: (app: express.Express, mount: ReturnType<typeof toExpressHandler>) => void, prefix: string) {
  let target: MountedTarget;
  beforeAll(async () => {
    const app = express();
    build(app, toExpressHandler(instance.faultline));
    target = {
      origin: await serve(app),
      prefix,
      token: seed.allScopesToken,
      organization: "acme",
      project: "web",
      digest: () => instance.faultline.worker.runDue("ingest.digest"),
    };
  });
  return () => target;
}

describe("Express mounted at the root", () => {
  requestSuite(mounted((app, mount) => app.use(mount), ""));
});

describe("Express at /a/b through nested routers", () => {
  requestSuite(
    mounted((app, mount) => {
      const outer = express.Router();
      const inner = express.Router();
      inner.use("/b", mount);
      outer.use("/a", inner);
      app.use(outer);
    }, "/a/b"),
    { uploads: false },
  );
});

describe("Express after the host's express.json({ verify: keepRawBody })", () => {
  requestSuite(
    mounted((app, mount) => {
      app.use(express.json({ verify: keepRawBody }));
      app.use("/faultline", mount);
    }, "/faultline"),
  );
});

describe("Express after the host's express.raw()", () => {
  requestSuite(
    mounted((app, mount) => {
      // Its default limit (100 KB) would refuse sentry-cli's chunk uploads (up to 2 MiB) before Faultline sees them.
      app.use(express.raw({ type: () => true, limit: "4mb" }));
      app.use("/faultline", mount);
    }, "/faultline"),
  );
});

describe("Express after a plain express.json(): JSON routes use the parsed value", () => {
  requestSuite(
    mounted((app, mount) => {
      app.use(express.json());
      app.use("/faultline", mount);
    }, "/faultline"),
    { uploads: false },
  );
});

describe("Express after a plain express.json() (raw bytes gone)", () => {
  let origin: string;
  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.post("/host/echo", (req, res) => void res.json({ parsed: req.body as unknown }));
    app.use("/faultline", toExpressHandler(instance.faultline));
    const textApp = express();
    textApp.use(express.text({ type: () => true }));
    textApp.use("/faultline", toExpressHandler(instance.faultline));
    origin = await serve(app);
    textOrigin = await serve(textApp);
  });
  let textOrigin: string;
  const ingestUrl = async (base: string, kind: "store" | "envelope") =>
    `${base}/faultline/api/${seed.project.id}/${kind}/?sentry_key=${(await instance.faultline.api.projects.keys("acme", "web"))[0]?.public}`;

  it("applies the input policy to the parsed value: a NUL character is a 400 naming the field", async () => {
    const response = await fetch(`${origin}/faultline/api/0/organizations/acme/issues/?id=1`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${seed.allScopesToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ status: "resolved\u0000" }),
    });
    expect([response.status, await response.text()]).toEqual([
      400,
      expect.stringMatching(/status: contains a NUL character/),
    ]);
  });

  it("answers ingest whose bytes a parser took with a 500 naming the fix, logged once", async () => {
    const event = { event_id: "a".repeat(32), message: "via store" };
    for (let i = 0; i < 2; i++) {
      const response = await fetch(await ingestUrl(origin, "store"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(event),
      });
      expect(response.status).toBe(500);
      const { detail } = (await response.json()) as { detail: string };
      expect(detail).toMatch(/consumed before Faultline/);
      expect(detail).toMatch(/ahead of app\.use\(express\.json\(\)\)/);
      expect(detail).toMatch(/express\.json\(\{ verify: keepRawBody \}\)/);
    }
    const { body } = envelope("read as text by the host");
    const text = await fetch(await ingestUrl(textOrigin, "envelope"), { method: "POST", body });
    expect([text.status, ((await text.json()) as { detail: string }).detail]).toEqual([
      500,
      expect.stringMatching(/Mount Faultline before the body parser/),
    ]);
    expect(warnings.filter((line) => line.includes("consumed before Faultline"))).toHaveLength(1);
  });

  it("still ingests SDK envelopes (no JSON content type, so the parser left them unread) and keeps the host's parsing", async () => {
    const { eventId, body } = envelope("after plain json");
    const posted = await fetch(await ingestUrl(origin, "envelope"), { method: "POST", body });
    expect([posted.status, await posted.json()]).toEqual([200, { id: eventId }]);
    const echo = await fetch(`${origin}/host/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"a":1}',
    });
    expect(await echo.json()).toEqual({ parsed: { a: 1 } });
  });
});

describe("Express: the origin under trust proxy", () => {
  it("takes X-Forwarded-Host and -Proto only from a trusted proxy, keeping the Host's port otherwise", async () => {
    const dsn = async (trust: boolean) => {
      const app = express();
      app.set("trust proxy", trust);
      app.use("/faultline", toExpressHandler(instance.faultline));
      const response = await fetch(`${await serve(app)}/faultline/api/0/projects/acme/web/keys/`, {
        headers: {
          Authorization: `Bearer ${seed.allScopesToken}`,
          "X-Forwarded-Host": "errors.example.com, proxy.internal",
          "X-Forwarded-Proto": "https",
        },
      });
      return new URL(((await response.json()) as Array<{ dsn: { public: string } }>)[0]?.dsn.public as string);
    };
    const trusted = await dsn(true);
    expect([trusted.protocol, trusted.host, trusted.pathname]).toEqual([
      "https:",
      "errors.example.com",
      `/faultline/${seed.project.id}`,
    ]);
    const untrusted = await dsn(false);
    expect([untrusted.protocol, untrusted.host]).toEqual(["http:", expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
  });
});

describe("Express: headers and streaming", () => {
  let origin: string;
  beforeAll(async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.cookie("host", "session");
      res.append("Link", "</host.css>; rel=preload");
      next();
    });
    app.use("/faultline", toExpressHandler(instance.faultline));
    origin = await serve(app);
  });

  it("keeps every Set-Cookie and Link, the host's and Faultline's", async () => {
    const raw = await new Promise<string[]>((resolve, reject) => {
      httpRequest(`${origin}/faultline/traps/headers/`, (res) => {
        res.resume();
        resolve(res.rawHeaders);
      })
        .on("error", reject)
        .end();
    });
    const values = (name: string) => raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);
    expect(values("set-cookie")).toEqual(["host=session; Path=/", "a=1; Path=/", "b=2; Path=/"]);
    expect(values("link").join(", ")).toBe('</host.css>; rel=preload, </one>; rel="one", </two>; rel="two"');
  });

  it("keeps every Set-Cookie and Link of a JSON reply written without a Response, the host's and Faultline's", async () => {
    const { raw, body } = await new Promise<{ raw: string[]; body: string }>((resolve, reject) => {
      httpRequest(`${origin}/faultline/traps/json-headers/`, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ raw: res.rawHeaders, body: text }));
      })
        .on("error", reject)
        .end();
    });
    const values = (name: string) => raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);
    expect(JSON.parse(body)).toEqual({ ok: true });
    expect(values("content-type")).toEqual(["application/json; charset=utf-8"]);
    expect(values("content-length")).toEqual([String(Buffer.byteLength(body))]);
    expect(values("set-cookie")).toEqual(["host=session; Path=/", "a=1; Path=/", "b=2; Path=/"]);
    expect(values("link").join(", ")).toBe('</host.css>; rel=preload, </one>; rel="one", </two>; rel="two"');
    expect(values("x-request-id")).toHaveLength(1);
  });

  it("streams an 8 MiB response and a 12 MiB chunked upload", async () => {
    const download = await fetch(`${origin}/faultline/traps/stream/`);
    expect(download.headers.get("transfer-encoding")).toBe("chunked");
    expect((await download.arrayBuffer()).byteLength).toBe(8 * MiB);

    const part = new Uint8Array(MiB).fill(7);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 12) return controller.close();
        sent += 1;
        controller.enqueue(part);
      },
    });
    const upload = await fetch(`${origin}/faultline/traps/upload/`, {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect([upload.status, await upload.json()]).toEqual([200, { bytes: 12 * MiB }]);
  });
});
