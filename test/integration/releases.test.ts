import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { sentryCli } from "../helpers/sentry-cli.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

const APP = new URL("../fixtures/sourcemaps/checkout.ts", import.meta.url).pathname;

/** Bundles and minifies the fixture app into `dir` (a real esbuild build, with a source map). */
async function bundle(dir: string, banner = "") {
  await build({ entryPoints: { app: APP }, bundle: true, minify: true, sourcemap: true, format: "iife", globalName: "shop", outdir: dir, banner: { js: banner }, logLevel: "silent" });
}

describe("releases API and sentry-cli artifact upload", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  const call = httpCaller(() => server.url);
  const work = mkdtempSync(join(tmpdir(), "faultline-releases-"));

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    await instance.faultline.api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("creates, lists, updates and deletes releases with Sentry's shapes", async () => {
    const token = acme.allScopesToken;
    const created = await call("POST", "/api/0/organizations/acme/releases/", token, { version: "shop@1.0.0", projects: ["web"], ref: "abc123", commits: [{ id: "abc123", message: "first" }] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: "shop@1.0.0", shortVersion: "1.0.0", ref: "abc123", commitCount: 1, newGroups: 0, firstEvent: null, deployCount: 0, projects: [{ slug: "web", newGroups: 0 }], versionInfo: { package: "shop", version: { raw: "1.0.0" } } });
    const again = await call("POST", "/api/0/organizations/acme/releases/", token, { version: "shop@1.0.0", projects: ["api"] });
    expect(again.status).toBe(208);
    expect(again.body.projects.map((p: { slug: string }) => p.slug)).toEqual(["api", "web"]);

    const updated = await call("PUT", "/api/0/organizations/acme/releases/shop@1.0.0/", token, { url: "https://shop.test/r/1", dateReleased: "2026-11-20T10:00:00Z" });
    expect(updated.body).toMatchObject({ url: "https://shop.test/r/1", dateReleased: "2026-11-20T10:00:00.000Z", ref: "abc123" });

    const deploy = await call("POST", "/api/0/organizations/acme/releases/shop@1.0.0/deploys/", token, { environment: "production", name: "deploy 1" });
    expect(deploy.status).toBe(201);
    expect(deploy.body).toMatchObject({ environment: "production", name: "deploy 1", dateStarted: null });
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/deploys/", token)).body).toHaveLength(1);
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).body).toMatchObject({ deployCount: 1, lastDeploy: { environment: "production" } });

    expect((await call("GET", "/api/0/projects/acme/api/releases/", token)).body.map((r: { version: string }) => r.version)).toEqual(["shop@1.0.0"]);
    expect((await call("GET", "/api/0/organizations/acme/releases/?query=shop@", token)).body).toHaveLength(1);
    expect((await call("GET", "/api/0/organizations/acme/releases/?query=nope", token)).body).toHaveLength(0);

    // Another organization sees nothing of it.
    expect((await call("GET", "/api/0/organizations/globex/releases/shop@1.0.0/", globex.allScopesToken)).status).toBe(404);
    expect((await call("GET", "/api/0/organizations/globex/releases/", globex.allScopesToken)).body).toEqual([]);

    expect((await call("POST", "/api/0/organizations/acme/releases/", token, { version: "x", projects: ["nope"] })).status).toBe(400);
    expect((await call("POST", "/api/0/organizations/acme/releases/", token, { version: "a/b" })).status).toBe(400);
    expect((await call("DELETE", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).status).toBe(204);
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).status).toBe(404);
  });

  it("shows releases seen on events with firstEvent, lastEvent and newGroups", async () => {
    const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
    const t = Date.parse("2026-11-21T08:00:00Z") / 1000;
    await capture({ release: "web@2.0.0", timestamp: t, exception: { values: [{ type: "TypeError", value: "a" }] } });
    await capture({ release: "web@2.0.0", timestamp: t + 60, exception: { values: [{ type: "TypeError", value: "a" }] } });
    await capture({ release: "web@2.0.0", timestamp: t + 30, exception: { values: [{ type: "RangeError", value: "b" }] } });
    const { body } = await call("GET", "/api/0/organizations/acme/releases/web@2.0.0/", acme.allScopesToken);
    expect(body).toMatchObject({
      version: "web@2.0.0",
      newGroups: 2,
      firstEvent: new Date(t * 1000).toISOString(),
      lastEvent: new Date((t + 60) * 1000).toISOString(),
      projects: [{ slug: "web", newGroups: 2 }],
    });
  });

  it("accepts sentry-cli sourcemaps inject + upload of an esbuild bundle (chunk upload, assemble)", async () => {
    const dir = join(work, "build-1");
    await bundle(dir);
    const env = { url: server.url, token: acme.allScopesToken, org: "acme", project: "web" };
    await sentryCli(["sourcemaps", "inject", dir], env);
    const upload = await sentryCli(["sourcemaps", "upload", "--release", "web@3.0.0", dir], env);
    expect(readdirSync(dir).sort()).toEqual(["app.js", "app.js.map"]);
    const rows = await instance.faultline.api.releases.artifacts("acme");
    expect(rows, upload.stderr).toEqual(expect.arrayContaining([
      expect.objectContaining({ url: "~/app.js", type: "minified_source", debugId: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
      expect.objectContaining({ url: "~/app.js.map", type: "source_map" }),
    ]));
  });
});
