import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, get as httpGet } from "node:http";
import { createRequire, isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
// Self-references resolve through package.json "exports" to dist/, exactly as for an installed package.
import { createFaultline, SCOPES } from "faultline";
import { toExpressHandler } from "faultline/express";
import { toNodeHandler } from "faultline/node";
import { createTestInstance } from "faultline/testing";
import { createDashboard } from "faultline/ui";
import express from "express";
import { listen } from "../helpers/server.js";

/** One asset with an explicit Accept-Encoding, its body as sent. */
function rawAsset(url: string, acceptEncoding: string): Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  return new Promise((done, fail) => {
    httpGet(url, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => done({ encoding: res.headers["content-encoding"], vary: res.headers.vary, body: Buffer.concat(chunks) }));
    }).on("error", fail);
  });
}

describe("the built package", () => {
  it("resolves every registered service of an instance (no decorator metadata needed)", async () => {
    const instance = await createTestInstance({ announce: false });
    try {
      const tokens = instance.faultline.services();
      expect(tokens.length).toBeGreaterThanOrEqual(10);
      for (const token of tokens) expect(instance.faultline.container.resolve(token), String(token)).toBeDefined();
    } finally {
      await instance.close();
    }
  });

  it("serves the API through the built Express and node adapters", async () => {
    const faultline = createFaultline();
    await faultline.api.organizations.create({ slug: "dist" });
    const user = await faultline.api.users.create({ username: "dist-owner" });
    await faultline.api.members.add({ organization: "dist", user: user.id, role: "owner" });
    const { token } = await faultline.api.tokens.create({ user: user.id, scopes: [...SCOPES] });
    const app = express();
    app.use("/faultline", toExpressHandler(faultline));
    const viaExpress = await listen(createServer(app));
    const viaNode = await listen(createServer(toNodeHandler(faultline)));
    try {
      const a = await fetch(`${viaExpress.url}/faultline/api/0/organizations/dist/`, { headers: { Authorization: `Bearer ${token}` } });
      expect(a.status).toBe(200);
      const b = await fetch(`${viaNode.url}/api/0/organizations/dist/svc-app-installations/`, { headers: { Authorization: `Bearer ${token}` } });
      expect(b.status).toBe(200);
      expect(await b.json()).toEqual([]);
    } finally {
      await viaExpress.close();
      await viaNode.close();
      await faultline.close();
    }
  });

  it("serves the dashboard (faultline/ui) with its built assets, from the ESM and the CommonJS build", async () => {
    const { createDashboard: fromCjs } = createRequire(import.meta.url)("faultline/ui") as { createDashboard: typeof createDashboard };
    for (const make of [createDashboard, fromCjs]) {
      const app = express();
      app.use("/admin/errors", toExpressHandler(make({ apiBasePath: "/faultline" })));
      const host = await listen(createServer(app));
      try {
        const page = await fetch(`${host.url}/admin/errors/acme/issues/1`);
        expect(page.status).toBe(200);
        expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
        const assets = [...(await page.text()).matchAll(/(?:src|href)="(\/admin\/errors\/assets\/[^"]+)"/g)].map((m) => m[1]);
        expect(assets).toHaveLength(2);
        for (const asset of assets) {
          const response = await fetch(`${host.url}${asset}`);
          expect(response.status).toBe(200);
          expect(response.headers.get("cache-control")).toContain("immutable");
          // The build's pre-compressed twins ship and are served (raw bytes: fetch would decompress).
          const identity = await rawAsset(`${host.url}${asset}`, "identity");
          for (const [encoding, decode] of [["br", brotliDecompressSync], ["gzip", gunzipSync]] as const) {
            const compressed = await rawAsset(`${host.url}${asset}`, encoding);
            expect([compressed.encoding, compressed.vary], `${asset} ${encoding}`).toEqual([encoding, "Accept-Encoding"]);
            expect(decode(compressed.body).equals(identity.body), `${asset} ${encoding}`).toBe(true);
          }
        }
      } finally {
        await host.close();
      }
    }
  });

  it("packs the dashboard's pre-compressed assets into the tarball", async () => {
    // What `npm pack` puts in the tarball ("files" in package.json), without packing or building.
    const [packed] = JSON.parse((await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"])).stdout) as Array<{ files: Array<{ path: string }> }>;
    const listing = (packed?.files ?? []).map((file) => file.path);
    const manifest = JSON.parse(await readFile("dist/ui-assets/manifest.json", "utf8")) as { files: string[]; encodings: Record<string, Record<string, string>> };
    for (const name of manifest.files) {
      expect(Object.keys(manifest.encodings[name] ?? {}).sort(), name).toEqual(["br", "gzip"]);
      for (const file of [name, ...Object.values(manifest.encodings[name] ?? {})]) expect(listing, file).toContain(`dist/ui-assets/${file}`);
    }
  });

  it("ships a working migrate CLI", async () => {
    const dir = await mkdtemp(join(tmpdir(), "faultline-dist-cli-"));
    try {
      // Another schema than the default: a new data directory already holds the default one (the PGlite template).
      // --create: a new embedded database, which the CLI starts only when told to (#27).
      const run = () => promisify(execFile)(process.execPath, ["dist/cli.js", "migrate", "--data-dir", dir, "--create", "--schema", "cli_check"]);
      expect((await run()).stdout).toMatch(/^applied 0001_core\napplied 0002_issues\n/);
      expect((await run()).stdout).toBe("faultline: already up to date\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("starts a new data directory and an in-memory database from the shipped, migrated PGlite template", async () => {
    const dir = await mkdtemp(join(tmpdir(), "faultline-dist-template-"));
    const dataDir = join(dir, "data");
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    try {
      // Nothing to migrate on a fresh directory: the template already holds the default schema.
      const first = createFaultline({ database: { dataDir }, logger: quiet, worker: false });
      expect((await first.migrate()).applied).toEqual([]);
      await first.api.organizations.create({ slug: "kept" });
      await first.close();
      const again = createFaultline({ database: { dataDir }, logger: quiet, worker: false });
      expect(await again.api.organizations.get("kept")).toMatchObject({ slug: "kept" });
      await again.close();

      const inMemory = createFaultline({ logger: quiet, worker: false });
      expect((await inMemory.migrate()).applied).toEqual([]);
      await inMemory.close();

      // Another schema is migrated on top of the template, as on any database.
      const otherSchema = createFaultline({ database: { dataDir: join(dir, "other") }, schema: "elsewhere", logger: quiet, worker: false });
      expect((await otherSchema.migrate()).applied).toContain("0001_core");
      await otherSchema.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("imports at run time only Node built-ins, its dependencies and the host's (optional peer) frameworks, in both builds", async () => {
    const dist = resolve(import.meta.dirname, "../../dist");
    const manifest = JSON.parse(await readFile(resolve(dist, "../package.json"), "utf8")) as Record<string, Record<string, string>>;
    const allowed = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const files = (await readdir(dist)).filter((name) => /\.(c?js)$/.test(name));
    expect(files.some((name) => name.endsWith(".cjs"))).toBe(true);
    const imported = new Map<string, string>();
    for (const file of files) {
      const code = await readFile(join(dist, file), "utf8");
      for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s*)["']((?:@[\w.-]+\/)?[a-z][\w.-]*)(?:\/[^"']*)?["']/gm)) {
        if (specifier && !isBuiltin(specifier)) imported.set(specifier, file);
      }
    }
    expect(imported.get("fastify-plugin")).toBeDefined();
    for (const [name, file] of imported) expect(allowed.has(name), `${file} imports ${name}`).toBe(true);
    // fastify-plugin runs inside faultline/fastify: a dependency, not something the host must add.
    expect(manifest.dependencies?.["fastify-plugin"]).toBeDefined();
  });
});
