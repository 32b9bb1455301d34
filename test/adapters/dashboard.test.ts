import { createServer, request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { toFastifyPlugin } from "../../adapters/fastify/index.js";
import { toNextJsHandler } from "../../adapters/next/index.js";
import { toNodeHandler } from "../../adapters/node/index.js";
import { CONTENT_SECURITY_POLICY, createDashboard } from "../../src/ui/index.js";
import { listen, type RunningServer } from "../helpers/server.js";

const BASE = "/admin/errors";
const dashboard = createDashboard({ apiBasePath: "/faultline", organization: "acme", pollIntervalMs: 5000 });

/** A raw request (no client-side normalisation of `..` or percent escapes). */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { path }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject).end();
  });
}

const assetPaths = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+\/assets\/[^"]+)"/g)].map((m) => m[1] as string);

const hosts: Array<[string, () => Promise<RunningServer>]> = [
  [
    "Express (nested router)",
    async () => {
      const app = express();
      const admin = express.Router();
      admin.use("/errors", toExpressHandler(dashboard));
      app.use("/admin", admin);
      app.use((_req, res) => res.status(404).send("host 404"));
      return listen(createServer(app));
    },
  ],
  [
    "Fastify",
    async () => {
      const app = Fastify();
      // Beside another handler (the API, in a host): two registrations of the adapter must coexist.
      await app.register(toFastifyPlugin({ handler: async () => new Response("api") }), { prefix: "/faultline" });
      await app.register(toFastifyPlugin(dashboard), { prefix: BASE });
      await app.listen({ port: 0, host: "127.0.0.1" });
      const address = app.server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  ],
  ["node:http", () => listen(createServer(toNodeHandler(dashboard, { basePath: BASE })))],
];

describe.each(hosts)("the dashboard mounted at %s under /admin/errors", (_name, start) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it("serves index.html for every page path: no-cache, the strict CSP, assets and config under the mount path", async () => {
    for (const path of [BASE, `${BASE}/`, `${BASE}/acme/issues/12`, `${BASE}/acme/projects?x=1`]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      const html = await response.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      expect(html).not.toMatch(/\sstyle=|<style/); // no inline style
      expect(assetPaths(html)).toHaveLength(2);
      for (const asset of assetPaths(html)) expect(asset).toMatch(/^\/admin\/errors\/assets\/app-[A-Z0-9]{8}\.(js|css)$/);
      const config = /name="faultline-dashboard" content="([^"]+)"/.exec(html)?.[1]?.replace(/&quot;/g, '"');
      expect(JSON.parse(config ?? "null")).toEqual({ base: BASE, api: "/faultline", organization: "acme", pollMs: 5000 });
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
  });

  it("serves the hashed assets with a year-long immutable cache; HEAD without a body", async () => {
    const html = await (await fetch(`${server.url}${BASE}/`)).text();
    for (const asset of assetPaths(html)) {
      const response = await fetch(`${server.url}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("content-type")).toMatch(asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      expect((await response.arrayBuffer()).byteLength).toBe(Number(response.headers.get("content-length")));
      const head = await fetch(`${server.url}${asset}`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
    }
  });

  it("answers 404 for unknown assets and file-like paths, and refuses path traversal", async () => {
    for (const path of [
      `${BASE}/assets/app-NOPE.js`,
      `${BASE}/assets/manifest.json`,
      `${BASE}/assets/`,
      `${BASE}/favicon.ico`,
      `${BASE}/assets/..%2Fmanifest.json`,
      `${BASE}/assets/%2e%2e/%2e%2e/package.json`,
      `${BASE}/..%2f..%2fpackage.json`,
      `${BASE}/assets/..%5c..%5cpackage.json`,
      `${BASE}/assets/../../../package.json`,
      `${BASE}/assets/../assets/../../src/ui/dashboard.ts`,
    ]) {
      const response = await rawGet(server.url, path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toMatch(/"name": "faultline"|createDashboard|"files"/);
    }
  });

  it("answers 405 to methods other than GET and HEAD", async () => {
    const response = await fetch(`${server.url}${BASE}/`, { method: "POST", body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("the dashboard beside the API in one Fastify app", () => {
  it("both registrations of the adapter answer under their own prefix", async () => {
    const app = Fastify();
    await app.register(toFastifyPlugin({ handler: async () => new Response("api") }), { prefix: "/faultline" });
    await app.register(toFastifyPlugin(dashboard), { prefix: BASE });
    try {
      expect(await (await app.inject({ url: "/faultline/api/0/" })).body).toBe("api");
      expect((await app.inject({ url: `${BASE}/acme` })).body).toContain("faultline-dashboard");
    } finally {
      await app.close();
    }
  });
});

describe("the dashboard in a Next.js route handler", () => {
  it("uses the basePath it is given", async () => {
    const { GET } = toNextJsHandler(dashboard, { basePath: "/dashboard" });
    const response = await GET(new Request("http://localhost/dashboard/acme/alerts"));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(assetPaths(html)[0]).toMatch(/^\/dashboard\/assets\//);
    const asset = await GET(new Request(`http://localhost${assetPaths(html)[0]}`));
    expect(asset.status).toBe(200);
    expect((await GET(new Request("http://localhost/elsewhere/"))).status).toBe(404);
  });
});

describe("createDashboard options", () => {
  it("rejects a mount path that is not a path", () => {
    expect(() => createDashboard({ apiBasePath: "https://elsewhere.test" })).toThrow(/apiBasePath/);
    expect(() => createDashboard({ apiBasePath: "/a/../b" })).toThrow(/no \. or \.\. segments/);
    expect(() => createDashboard({ apiBasePath: "/v1.2/faultline/" })).not.toThrow();
    expect(() => createDashboard({ basePath: "/a b" })).toThrow(/basePath/);
  });

  it("answers 503 naming the fix when there is no build", async () => {
    const empty = await mkdtemp(join(tmpdir(), "faultline-ui-"));
    try {
      const response = await createDashboard({ assetsDir: empty }).handler(new Request("http://localhost/"));
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/no dashboard build .*npm run build/);
    } finally {
      await rm(empty, { recursive: true });
    }
  });
});
