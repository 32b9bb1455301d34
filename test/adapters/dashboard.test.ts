import { createServer, request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
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

/** A raw request: node:http leaves the body as sent (fetch would decompress it and hide the encoding). */
function rawBytes(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: init.method ?? "GET", headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject).end();
  });
}

const assetPaths = (html: string) =>
  [...html.matchAll(/(?:src|href)="([^"]+\/assets\/[^"]+)"/g)].map((m) => m[1] as string);

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
      for (const asset of assetPaths(html))
        expect(asset).toMatch(/^\/admin\/errors\/assets\/app-[A-Z0-9]{8}\.(js|css)$/);
      const config = /name="faultline-dashboard" content="([^"]+)"/.exec(html)?.[1]?.replace(/&quot;/g, '"');
      expect(JSON.parse(config ?? "null")).toEqual({
        base: BASE,
        api: "/faultline",
        organization: "acme",
        pollMs: 5000,
        signInUrl: null,
        signInReturnParam: "returnTo",
      });
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
  });

  it("serves the hashed assets with a year-long immutable cache; HEAD without a body", async () => {
    const html = await (await fetch(`${server.url}${BASE}/`)).text();
    for (const asset of assetPaths(html)) {
      const response = await rawBytes(server.url, asset);
      expect(response.status).toBe(200);
      expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(response.headers["content-type"]).toMatch(asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      expect(response.body.byteLength).toBe(Number(response.headers["content-length"]));
      const head = await rawBytes(server.url, asset, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.body.byteLength).toBe(0);
    }
  });

  it("serves each asset pre-compressed as Accept-Encoding allows: the same bytes, Vary, its own length and ETag; HEAD and 304 alike", async () => {
    const html = await (await fetch(`${server.url}${BASE}/`)).text();
    const decoders: Record<string, (body: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync };
    for (const asset of assetPaths(html)) {
      // No Accept-Encoding: the bytes as built, no Content-Encoding, but the cache is told it varies.
      const identity = await rawBytes(server.url, asset);
      expect(identity.headers["content-encoding"], asset).toBeUndefined();
      expect(identity.headers.vary).toBe("Accept-Encoding");
      expect(identity.headers.etag).toMatch(/^"[\w-]+"$/);
      const etags = new Set([identity.headers.etag]);
      const cases: Array<[string, string | undefined]> = [
        ["gzip", "gzip"],
        ["br", "br"],
        ["gzip, deflate, br, zstd", "br"], // what Chromium sends: brotli is the smaller
        ["br;q=0.5, gzip;q=0.8", "gzip"], // the client's preference wins
        ["br;q=0, gzip", "gzip"],
        ["gzip;q=0", undefined],
        ["identity", undefined],
        ["deflate", undefined], // not built: the bytes as they are
        ["*", "br"],
        ["*;q=0, identity", undefined],
      ];
      for (const [accept, expected] of cases) {
        const response = await rawBytes(server.url, asset, { headers: { "accept-encoding": accept } });
        const label = `${asset} with Accept-Encoding: ${accept}`;
        expect(response.status, label).toBe(200);
        expect(response.headers["content-encoding"], label).toBe(expected);
        expect(response.headers.vary, label).toBe("Accept-Encoding");
        expect(response.headers["content-type"], label).toBe(identity.headers["content-type"]);
        expect(response.headers["cache-control"], label).toBe("public, max-age=31536000, immutable");
        expect(response.body.byteLength, label).toBe(Number(response.headers["content-length"]));
        const decoded = expected ? (decoders[expected] as (body: Buffer) => Buffer)(response.body) : response.body;
        expect(decoded.equals(identity.body), label).toBe(true);
        if (expected) {
          expect(response.body.byteLength, label).toBeLessThan(identity.body.byteLength / 2);
          etags.add(response.headers.etag);
        } else {
          expect(response.headers.etag, label).toBe(identity.headers.etag);
        }
        const head = await rawBytes(server.url, asset, { method: "HEAD", headers: { "accept-encoding": accept } });
        expect(
          [
            head.status,
            head.headers["content-encoding"],
            head.headers["content-length"],
            head.headers.etag,
            head.body.byteLength,
          ],
          `HEAD ${label}`,
        ).toEqual([200, expected, response.headers["content-length"], response.headers.etag, 0]);
        const again = await rawBytes(server.url, asset, {
          headers: { "accept-encoding": accept, "if-none-match": String(response.headers.etag) },
        });
        expect(
          [again.status, again.headers.etag, again.headers.vary, again.body.byteLength],
          `If-None-Match ${label}`,
        ).toEqual([304, response.headers.etag, "Accept-Encoding", 0]);
      }
      expect(etags.size, asset).toBe(3); // one per variant: a cache never serves one encoding's bytes for another
      // Another variant's ETag is not a match.
      const other = await rawBytes(server.url, asset, {
        headers: { "accept-encoding": "gzip", "if-none-match": String(identity.headers.etag) },
      });
      expect(other.status).toBe(200);
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

  it("takes a sign-in URL (a path on this origin or an http(s) URL) for the 401 screen, and the name of its return parameter", async () => {
    for (const bad of [
      "javascript:alert(1)",
      "//evil.test/login",
      "/\\evil.test",
      "login",
      "ftp://x.test/",
      "/login\nx",
    ]) {
      expect(() => createDashboard({ signInUrl: bad }), bad).toThrow(/signInUrl/);
    }
    expect(() => createDashboard({ signInReturnParam: "a b" })).toThrow(/signInReturnParam/);
    const config = async (options: Parameters<typeof createDashboard>[0]) => {
      const html = await (await createDashboard(options).handler(new Request("http://localhost/"))).text();
      return JSON.parse(
        /name="faultline-dashboard" content="([^"]+)"/
          .exec(html)?.[1]
          ?.replace(/&quot;/g, '"')
          .replace(/&amp;/g, "&") ?? "null",
      ) as Record<string, unknown>;
    };
    expect(await config({ signInUrl: "/login?from=faultline&x=1" })).toMatchObject({
      signInUrl: "/login?from=faultline&x=1",
      signInReturnParam: "returnTo",
    });
    expect(await config({ signInUrl: "https://sso.example.com/authorize", signInReturnParam: "next" })).toMatchObject({
      signInUrl: "https://sso.example.com/authorize",
      signInReturnParam: "next",
    });
    expect(await config({ signInUrl: "/login", signInReturnParam: false })).toMatchObject({
      signInUrl: "/login",
      signInReturnParam: null,
    });
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
