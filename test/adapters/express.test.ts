import { createServer, request as httpRequest } from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultlineExpress, keepRawBody } from "../../adapters/express/index.js";
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
        headers.append("Link", "</one>; rel=\"one\"");
        headers.append("Link", "</two>; rel=\"two\"");
        return new Response("ok", { headers });
      },
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
let seed: Awaited<ReturnType<typeof seedOrganization>>;
const servers: RunningServer[] = [];

async function serve(app: express.Express): Promise<string> {
  const server = await listen(createServer(app));
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false, plugins: [trapsPlugin] });
  seed = await seedOrganization(instance.faultline, "acme");
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await instance?.close();
});

function mounted(build: (app: express.Express, mount: ReturnType<typeof faultlineExpress>) => void, prefix: string) {
  let target: MountedTarget;
  beforeAll(async () => {
    const app = express();
    build(app, faultlineExpress(instance.faultline));
    target = { origin: await serve(app), prefix, token: seed.allScopesToken, organization: "acme", project: "web", digest: () => instance.faultline.worker.runDue("ingest.digest") };
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
      app.use(express.raw({ type: () => true }));
      app.use("/faultline", mount);
    }, "/faultline"),
  );
});

describe("Express after a plain express.json() (raw bytes gone)", () => {
  let origin: string;
  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.post("/host/echo", (req, res) => void res.json({ parsed: req.body as unknown }));
    app.use("/faultline", faultlineExpress(instance.faultline));
    origin = await serve(app);
  });

  it("answers a JSON write with a 500 that says what to change, never re-serialising the body", async () => {
    const response = await fetch(`${origin}/faultline/api/0/organizations/acme/issues/1/`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${seed.allScopesToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ status: "resolved" }),
    });
    expect(response.status).toBe(500);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/express\.json\(\{ verify: keepRawBody \}\)/);
  });

  it("still ingests SDK envelopes (no JSON content type, so the parser left them unread) and keeps the host's parsing", async () => {
    const { eventId, body } = envelope("after plain json");
    const key = (await instance.faultline.api.projects.keys("acme", "web"))[0]?.public;
    const posted = await fetch(`${origin}/faultline/api/${seed.project.id}/envelope/?sentry_key=${key}`, { method: "POST", body });
    expect([posted.status, await posted.json()]).toEqual([200, { id: eventId }]);
    const echo = await fetch(`${origin}/host/echo`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ parsed: { a: 1 } });
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
    app.use("/faultline", faultlineExpress(instance.faultline));
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
    const upload = await fetch(`${origin}/faultline/traps/upload/`, { method: "POST", body, duplex: "half" } as RequestInit);
    expect([upload.status, await upload.json()]).toEqual([200, { bytes: 12 * MiB }]);
  });
});

describe("Express: the origin of DSNs and Link headers", () => {
  const dsnThrough = async (origin: string, headers: Record<string, string>) => {
    const response = await fetch(`${origin}/faultline/api/0/projects/acme/web/keys/`, { headers: { Authorization: `Bearer ${seed.allScopesToken}`, ...headers } });
    expect(response.status).toBe(200);
    const [key] = (await response.json()) as Array<{ dsn: { public: string } }>;
    return new URL(key?.dsn.public ?? "").host;
  };

  it("keeps the Host's port, and takes X-Forwarded-Host only when `trust proxy` trusts the peer", async () => {
    const untrusting = express();
    untrusting.use("/faultline", faultlineExpress(instance.faultline));
    const trusting = express();
    trusting.set("trust proxy", "loopback");
    trusting.use("/faultline", faultlineExpress(instance.faultline));
    const [plain, behindProxy] = [await serve(untrusting), await serve(trusting)];
    const forwarded = { "X-Forwarded-Host": "errors.example.com:8443, proxy.internal" };
    expect(await dsnThrough(plain, {})).toBe(new URL(plain).host);
    expect(await dsnThrough(plain, forwarded)).toBe(new URL(plain).host);
    expect(await dsnThrough(behindProxy, forwarded)).toBe("errors.example.com:8443");
  });
});
