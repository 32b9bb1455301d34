import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { type ArtifactStore, ArtifactStoreToken, definePlugin, registerValue, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { sentryCli } from "../helpers/sentry-cli.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

const APP = new URL("../fixtures/sourcemaps/checkout.ts", import.meta.url).pathname;

/** Bundles and minifies the fixture app into `dir` (a real esbuild build, with a source map). */
async function bundle(dir: string, banner = "") {
  await build({
    entryPoints: { app: APP },
    bundle: true,
    minify: true,
    sourcemap: true,
    format: "iife",
    globalName: "shop",
    outdir: dir,
    banner: { js: banner },
    logLevel: "silent",
  });
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
    const created = await call("POST", "/api/0/organizations/acme/releases/", token, {
      version: "shop@1.0.0",
      projects: ["web"],
      ref: "abc123",
      commits: [{ id: "abc123", message: "first" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      version: "shop@1.0.0",
      shortVersion: "1.0.0",
      ref: "abc123",
      commitCount: 1,
      newGroups: 0,
      firstEvent: null,
      deployCount: 0,
      projects: [{ slug: "web", newGroups: 0 }],
      versionInfo: { package: "shop", version: { raw: "1.0.0" } },
    });
    const again = await call("POST", "/api/0/organizations/acme/releases/", token, {
      version: "shop@1.0.0",
      projects: ["api"],
    });
    expect(again.status).toBe(208);
    expect(again.body.projects.map((p: { slug: string }) => p.slug)).toEqual(["api", "web"]);

    const updated = await call("PUT", "/api/0/organizations/acme/releases/shop@1.0.0/", token, {
      url: "https://shop.test/r/1",
      dateReleased: "2026-11-20T10:00:00Z",
    });
    expect(updated.body).toMatchObject({
      url: "https://shop.test/r/1",
      dateReleased: "2026-11-20T10:00:00.000Z",
      ref: "abc123",
    });

    const deploy = await call("POST", "/api/0/organizations/acme/releases/shop@1.0.0/deploys/", token, {
      environment: "production",
      name: "deploy 1",
    });
    expect(deploy.status).toBe(201);
    expect(deploy.body).toMatchObject({ environment: "production", name: "deploy 1", dateStarted: null });
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/deploys/", token)).body).toHaveLength(1);
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).body).toMatchObject({
      deployCount: 1,
      lastDeploy: { environment: "production" },
    });

    expect(
      (await call("GET", "/api/0/projects/acme/api/releases/", token)).body.map((r: { version: string }) => r.version),
    ).toEqual(["shop@1.0.0"]);
    expect((await call("GET", "/api/0/organizations/acme/releases/?query=shop@", token)).body).toHaveLength(1);
    expect((await call("GET", "/api/0/organizations/acme/releases/?query=nope", token)).body).toHaveLength(0);

    // Another organization sees nothing of it.
    expect((await call("GET", "/api/0/organizations/globex/releases/shop@1.0.0/", globex.allScopesToken)).status).toBe(
      404,
    );
    expect((await call("GET", "/api/0/organizations/globex/releases/", globex.allScopesToken)).body).toEqual([]);

    expect(
      (await call("POST", "/api/0/organizations/acme/releases/", token, { version: "x", projects: ["nope"] })).status,
    ).toBe(400);
    expect((await call("POST", "/api/0/organizations/acme/releases/", token, { version: "a/b" })).status).toBe(400);
    expect((await call("DELETE", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).status).toBe(204);
    expect((await call("GET", "/api/0/organizations/acme/releases/shop@1.0.0/", token)).status).toBe(404);
  });

  it("answers sentry-cli's releases new, finalize, list, info, delete and deploys new", async () => {
    const env = { url: server.url, token: acme.allScopesToken, org: "acme", project: "web" };
    await sentryCli(["releases", "new", "web@5.0.0"], env);
    await sentryCli(["releases", "finalize", "web@5.0.0"], env);
    await sentryCli(["deploys", "new", "--release", "web@5.0.0", "-e", "staging", "-n", "canary"], env);
    const { body } = await call("GET", "/api/0/organizations/acme/releases/web@5.0.0/", acme.allScopesToken);
    expect(body).toMatchObject({
      version: "web@5.0.0",
      dateReleased: expect.any(String),
      deployCount: 1,
      lastDeploy: { environment: "staging", name: "canary" },
      projects: [{ slug: "web" }],
    });
    const listed = await sentryCli(["releases", "list"], env);
    expect(listed.stdout).toContain("web@5.0.0");
    expect((await sentryCli(["releases", "info", "web@5.0.0"], env)).stdout).toContain("web@5.0.0");
    await sentryCli(["releases", "delete", "web@5.0.0"], env);
    expect((await call("GET", "/api/0/organizations/acme/releases/web@5.0.0/", acme.allScopesToken)).status).toBe(404);
  });

  it("shows releases seen on events with firstEvent, lastEvent and newGroups", async () => {
    const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
    const t = Date.parse("2026-11-21T08:00:00Z") / 1000;
    const { eventId } = await capture({
      release: "web@2.0.0",
      timestamp: t,
      exception: { values: [{ type: "TypeError", value: "a" }] },
    });
    await capture({
      release: "web@2.0.0",
      timestamp: t + 60,
      exception: { values: [{ type: "TypeError", value: "a" }] },
    });
    await capture({
      release: "web@2.0.0",
      timestamp: t + 30,
      exception: { values: [{ type: "RangeError", value: "b" }] },
    });
    const { body } = await call("GET", "/api/0/organizations/acme/releases/web@2.0.0/", acme.allScopesToken);
    expect(body).toMatchObject({
      version: "web@2.0.0",
      newGroups: 2,
      firstEvent: new Date(t * 1000).toISOString(),
      lastEvent: new Date((t + 60) * 1000).toISOString(),
      projects: [{ slug: "web", newGroups: 2 }],
    });
    // The issue's firstRelease / lastRelease are these release rows.
    const { groupID } = (await call("GET", `/api/0/projects/acme/web/events/${eventId}/`, acme.allScopesToken)).body;
    const issue = (await call("GET", `/api/0/organizations/acme/issues/${groupID}/`, acme.allScopesToken)).body;
    expect(issue.firstRelease).toMatchObject({
      version: "web@2.0.0",
      shortVersion: "2.0.0",
      firstEvent: new Date(t * 1000).toISOString(),
      newGroups: 2,
    });
    expect(issue.lastRelease).toMatchObject({
      version: "web@2.0.0",
      lastEvent: new Date((t + 60) * 1000).toISOString(),
    });
  });

  it("accepts sentry-cli sourcemaps inject + upload of an esbuild bundle (chunk upload, assemble)", async () => {
    const dir = join(work, "build-1");
    await bundle(dir);
    const env = { url: server.url, token: acme.allScopesToken, org: "acme", project: "web" };
    await sentryCli(["sourcemaps", "inject", dir], env);
    const upload = await sentryCli(["sourcemaps", "upload", "--release", "web@3.0.0", dir], env);
    expect(readdirSync(dir).sort()).toEqual(["app.js", "app.js.map"]);
    // Bad input is a 4xx saying what was wrong.
    const assemble = "/api/0/organizations/acme/artifactbundle/assemble/";
    const checksum = "a".repeat(40);
    expect(
      await call("POST", assemble, acme.allScopesToken, { checksum, chunks: [], projects: ["nope"] }),
    ).toMatchObject({ status: 400, body: { detail: expect.stringContaining("nope") } });
    expect(
      await call("POST", assemble, acme.allScopesToken, { checksum, chunks: [checksum], projects: ["web"] }),
    ).toMatchObject({ status: 200, body: { state: "not_found", missingChunks: [checksum] } });
    const wrongName = new FormData();
    wrongName.append("file", new Blob(["hello"]), checksum);
    const refused = await fetch(`${server.url}/api/0/organizations/acme/chunk-upload/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${acme.allScopesToken}` },
      body: wrongName,
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toContain("does not match");
    const rows = await instance.faultline.api.releases.artifacts("acme");
    expect(rows, upload.stderr).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: "~/app.js",
          type: "minified_source",
          debugId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        }),
        expect.objectContaining({ url: "~/app.js.map", type: "source_map" }),
      ]),
    );
  });
});

// Queued ingest maps frames in the digest's transaction; direct ingest before its batch is written.
for (const queued of [true, false])
  describe(`source-map symbolication of a real @sentry/node event from a minified esbuild bundle (${queued ? "queued" : "direct"} ingest)`, () => {
    let instance: TestInstance;
    let server: RunningServer;
    let acme: Awaited<ReturnType<typeof seedOrganization>>;
    const work = mkdtempSync(join(tmpdir(), "faultline-symbolicate-"));
    const call = httpCaller(() => server.url);
    const sentryNode = pathToFileURL(createRequire(import.meta.url).resolve("@sentry/node")).href;

    beforeAll(async () => {
      instance = await createTestInstance({ worker: false, ingest: { queued } });
      acme = await seedOrganization(instance.faultline, "acme");
      server = await serveFaultline(instance.faultline);
    });
    afterAll(async () => {
      await server?.close();
      await instance?.close();
      rmSync(work, { recursive: true, force: true });
    });

    /** Builds (CommonJS, minified, with a map), injects debug IDs and uploads with sentry-cli; `corrupt` replaces the map first. */
    async function release(
      name: string,
      version: string,
      options: { banner?: string; corrupt?: string; upload?: boolean } = {},
    ) {
      const dir = join(work, name);
      await build({
        entryPoints: { app: APP },
        bundle: true,
        minify: true,
        sourcemap: true,
        format: "cjs",
        platform: "node",
        outdir: dir,
        banner: { js: options.banner ?? "" },
        logLevel: "silent",
      });
      const env = { url: server.url, token: acme.allScopesToken, org: "acme", project: "web" };
      await sentryCli(["sourcemaps", "inject", dir], env);
      if (options.corrupt !== undefined) {
        // Keeps the debug ID inject wrote, so the broken map is still the one the event points to.
        const { debug_id } = JSON.parse(readFileSync(join(dir, "app.js.map"), "utf8")) as { debug_id: string };
        writeFileSync(join(dir, "app.js.map"), JSON.stringify({ ...JSON.parse(options.corrupt), debug_id }));
      }
      if (options.upload !== false) await sentryCli(["sourcemaps", "upload", "--release", version, dir], env);
      return dir;
    }

    /** Runs the bundle in a real Node process with @sentry/node, which reports the thrown error here. */
    async function crash(
      dir: string,
      version: string,
      project: { id: string | number; keys: Array<{ public: string }> } = acme.project,
    ): Promise<string> {
      const dsn = `http://${project.keys[0]?.public}@${new URL(server.url).host}/${project.id}`;
      const script = `
      import * as Sentry from ${JSON.stringify(sentryNode)};
      import { createRequire } from "node:module";
      Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: ${JSON.stringify(version)}, defaultIntegrations: false, integrations: [] });
      const app = createRequire(import.meta.url)(${JSON.stringify(join(dir, "app.js"))});
      let id;
      try { app.checkout(); } catch (error) { id = Sentry.captureException(error); }
      await Sentry.flush(10000);
      process.stdout.write(id);
    `;
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        timeout: 30_000,
      });
      await instance.faultline.worker.runDue("ingest.digest");
      return stdout.trim();
    }

    const eventOf = async (id: string, project = "web") => {
      const response = await call("GET", `/api/0/projects/acme/${project}/events/${id}/`, acme.allScopesToken);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    const framesOf = (event: {
      entries: Array<{
        type: string;
        data: { values: Array<{ stacktrace: { frames: unknown[] }; rawStacktrace: { frames: unknown[] } | null }> };
      }>;
    }) => {
      const exception = event.entries.find((entry) => entry.type === "exception")?.data.values.at(-1);
      return {
        frames: exception?.stacktrace.frames as Array<Record<string, unknown>>,
        raw: exception?.rawStacktrace?.frames as Array<Record<string, unknown>> | undefined,
      };
    };

    it("maps the frames by debug ID to the original file, function, line and source context; keeps the raw frames", async () => {
      const dir = await release("build-1", "web@4.0.0");
      const event = await eventOf(await crash(dir, "web@4.0.0"));
      const { frames, raw } = framesOf(event);
      const top = frames.at(-1) as Record<string, unknown>;
      expect(top).toMatchObject({ function: "validateQuantity", lineNo: 9, inApp: true });
      expect(top.filename).toMatch(/checkout\.ts$/);
      expect(top.context).toContainEqual([9, expect.stringContaining("throw new Error(`Invalid quantity")]);
      expect(frames.at(-2)).toMatchObject({ function: "computeTotal", lineNo: 16 });
      expect(raw?.at(-1)).toMatchObject({
        filename: expect.stringMatching(/build-1\/app\.js$/),
        function: expect.not.stringMatching(/validateQuantity/),
      });
      expect(event.errors ?? []).toEqual([]);
      expect(event.title).toContain("Invalid quantity for pear");
    });

    it("maps only the events of the projects the bundle was uploaded for", async () => {
      const other = await instance.faultline.api.projects.create({
        organization: "acme",
        slug: `other-${queued}`,
        platform: "node",
      });
      const event = await eventOf(await crash(join(work, "build-1"), "web@4.0.0", other), other.slug);
      expect(framesOf(event).frames.at(-1)).toMatchObject({ filename: expect.stringMatching(/build-1\/app\.js$/) });
      expect(event.errors).toContainEqual(expect.objectContaining({ type: "js_no_source" }));
    });

    it("groups the same bug from two different builds into one issue", async () => {
      const first = await eventOf(await crash(join(work, "build-1"), "web@4.0.0"));
      const dir = await release("build-2", "web@4.0.1", { banner: "var buildNumber=2;console.debug&&void 0;" });
      const second = await eventOf(await crash(dir, "web@4.0.1"));
      expect(framesOf(second).frames.at(-1)).toMatchObject({ function: "validateQuantity", lineNo: 9 });
      expect(second.groupID).toBe(first.groupID);
    });

    it("a broken map leaves the frame as sent and says why in the event's errors", async () => {
      // sentry-cli refuses maps it cannot decode; one that maps nothing is accepted and is useless.
      const dir = await release("build-3", "web@4.0.2", {
        banner: "var buildNumber=3;",
        corrupt: '{"version":3,"sources":["x.ts"],"names":[],"mappings":""}',
      });
      const event = await eventOf(await crash(dir, "web@4.0.2"));
      const { frames, raw } = framesOf(event);
      expect(frames.at(-1)).toMatchObject({
        filename: expect.stringMatching(/build-3\/app\.js$/),
        function: expect.not.stringMatching(/validateQuantity/),
      });
      expect(raw).toBeUndefined();
      expect(event.errors).toContainEqual(expect.objectContaining({ type: "js_invalid_sourcemap_location" }));
    });

    it("a map that was never uploaded leaves the frame as sent and records js_no_source", async () => {
      const dir = await release("build-4", "web@4.0.3", { banner: "var buildNumber=4;", upload: false });
      const event = await eventOf(await crash(dir, "web@4.0.3"));
      expect(framesOf(event).frames.at(-1)).toMatchObject({ filename: expect.stringMatching(/build-4\/app\.js$/) });
      expect(event.errors).toContainEqual(expect.objectContaining({ type: "js_no_source" }));
    });

    it("without debug IDs, finds the map by release and the frame's URL (`~/` matches any scheme and host)", async () => {
      // The frames @sentry/node sent from build-1 (kept as `raw_stacktrace`), as a browser would send them: from a URL, no debug_meta.
      const sent = (
        await call(
          "GET",
          `/api/0/projects/acme/web/events/${await crash(join(work, "build-1"), "web@4.0.0")}/json/`,
          acme.allScopesToken,
        )
      ).body;
      const frames = (sent.exception.values[0].raw_stacktrace.frames as Array<Record<string, unknown>>).map((frame) =>
        String(frame.filename).endsWith("build-1/app.js")
          ? { ...frame, filename: undefined, abs_path: "https://shop.test/app.js?v=7" }
          : frame,
      );
      const eventId = "5f".repeat(16);
      const event = {
        event_id: eventId,
        platform: "javascript",
        release: "web@4.0.0",
        exception: { values: [{ type: "Error", value: "Invalid quantity for pear: 0", stacktrace: { frames } }] },
      };
      const envelope = [
        JSON.stringify({ event_id: eventId }),
        JSON.stringify({ type: "event" }),
        JSON.stringify(event),
      ].join("\n");
      const response = await fetch(
        `${server.url}/api/${acme.project.id}/envelope/?sentry_key=${acme.project.keys[0]?.public}`,
        { method: "POST", body: envelope },
      );
      expect(response.status).toBe(200);
      await instance.faultline.worker.runDue("ingest.digest");
      const stored = await eventOf(eventId);
      expect(framesOf(stored).frames.at(-1)).toMatchObject({
        function: "validateQuantity",
        lineNo: 9,
        filename: expect.stringMatching(/checkout\.ts$/),
      });
      expect(framesOf(stored).raw?.at(-1)).toMatchObject({ absPath: "https://shop.test/app.js?v=7" });
      // The same bug as the Node events of build-1: one issue.
      expect(stored.groupID).toBe((await eventOf(sent.event_id)).groupID);
    });
  });

describe("a host's own ArtifactStore", () => {
  it("replaces the PostgreSQL blobs: what sentry-cli uploads lands in it, none in artifact_blobs", async () => {
    const blobs = new Map<string, Uint8Array>();
    const memory: ArtifactStore = {
      put: async (organizationId, list) =>
        list.forEach(({ checksum, data }) => blobs.set(`${organizationId}/${checksum}`, data)),
      has: async (organizationId, checksums) =>
        new Set(checksums.filter((checksum) => blobs.has(`${organizationId}/${checksum}`))),
      get: async (organizationId, checksum) => blobs.get(`${organizationId}/${checksum}`) ?? null,
    };
    const objectStore = definePlugin({
      id: "acme-object-store",
      dependencies: ["releases"],
      register: (container) => registerValue(container, ArtifactStoreToken, memory),
    });
    const instance = await createTestInstance({ worker: false, plugins: [objectStore] });
    const server = await serveFaultline(instance.faultline);
    const dir = mkdtempSync(join(tmpdir(), "faultline-store-"));
    try {
      const acme = await seedOrganization(instance.faultline, "acme");
      await bundle(dir);
      const env = { url: server.url, token: acme.allScopesToken, org: "acme", project: "web" };
      await sentryCli(["sourcemaps", "inject", dir], env);
      await sentryCli(["sourcemaps", "upload", "--release", "web@9.0.0", dir], env);
      expect(blobs.size).toBeGreaterThanOrEqual(3); // the bundle's chunk, the script and its map
      const db = instance.faultline.container.resolve(tokens.Db);
      const { rows } = await sql<{
        n: string;
      }>`select count(*) as n from ${sql.table(`${instance.schema}.artifact_blobs`)}`.execute(db);
      expect(Number(rows[0]?.n)).toBe(0);
      expect(await instance.faultline.api.releases.artifacts("acme")).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
      await instance.close();
    }
  });
});
