import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArtifactStore, ArtifactStoreToken, definePlugin, registerValue, tokens } from "../../src/index.js";
import { PIECE_BYTES, readStoredFile } from "../../src/plugins/releases/artifacts/pieces.js";
import { sha1 } from "../../src/plugins/releases/artifacts/chunks.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { artifactBundle, assemble, uploadBundle, uploadChunks } from "../helpers/artifact-upload.js";
import { seedOrganization } from "../helpers/seed.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";

const MiB = 1024 * 1024;

describe("artifact bundles: stored in pieces, refused past the configured limits (#27)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let token = "";
  let organizationId = 0;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, releases: { maxBundleBytes: 8 * MiB, maxBundleFiles: 5 } });
    const acme = await seedOrganization(instance.faultline, "acme");
    token = (await instance.faultline.api.tokens.create({ user: acme.owner.id, scopes: ["project:releases"] })).token;
    organizationId = Number(acme.organization.id);
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const read = (checksum: string, maxBytes = 64 * MiB) =>
    readStoredFile(
      instance.faultline.container.resolve(tokens.Db),
      instance.faultline.container.resolve(ArtifactStoreToken),
      organizationId,
      checksum,
      maxBytes,
    );
  /** The stored bytes' SHA-1 (comparing MiBs with toEqual would diff them byte by byte on failure). */
  const storedChecksum = async (checksum: string) => {
    const stored = await read(checksum);
    return stored && "data" in stored ? sha1(stored.data) : stored;
  };

  it("stores a file larger than a piece in pieces and reads it back byte for byte (a piece repeated in it is stored once)", async () => {
    const repeated = randomBytes(PIECE_BYTES);
    const map = Buffer.concat([repeated, randomBytes(PIECE_BYTES), repeated, randomBytes(1234)]);
    const small = Buffer.from("console.log('small');");
    expect(
      await uploadBundle(
        server.url,
        token,
        artifactBundle({ "big.js.map": { data: map }, "small.js": { data: small } }),
      ),
    ).toEqual({ state: "ok", detail: null, missingChunks: [] });
    const files = await instance.faultline.api.releases.artifacts("acme");
    expect(files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ url: "~/big.js.map", size: map.byteLength }),
        expect.objectContaining({ url: "~/small.js", size: small.byteLength }),
      ]),
    );
    expect(await storedChecksum(sha1(map))).toBe(sha1(map));
    expect(await storedChecksum(sha1(small))).toBe(sha1(small));
    // Over the reader's limit the file is not read: its size says why.
    expect(await read(sha1(map), MiB)).toEqual({ tooLarge: map.byteLength, limit: MiB });
    const db = instance.faultline.container.resolve(tokens.Db);
    const pieces = await sql<{
      pieces: string[];
    }>`select pieces from ${sql.table(`${instance.schema}.artifact_blob_pieces`)} where checksum = ${sha1(map)}`.execute(
      db,
    );
    expect(pieces.rows[0]?.pieces).toEqual([
      sha1(repeated),
      sha1(map.subarray(PIECE_BYTES, 2 * PIECE_BYTES)),
      sha1(repeated),
      sha1(map.subarray(3 * PIECE_BYTES)),
    ]);
  });

  it("ends in `error` naming the limit when a bundle unpacks past maxBundleBytes, or holds more than maxBundleFiles; the host stays up", async () => {
    const zeros = await uploadBundle(
      server.url,
      token,
      artifactBundle({ "zeros.js": { data: new Uint8Array(9 * MiB) } }),
    );
    expect(zeros).toEqual({
      state: "error",
      detail: `Invalid artifact bundle: the bundle unpacks to more than ${8 * MiB} bytes`,
      missingChunks: [],
    });
    const many = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`f${i}.js`, { data: Buffer.from(`f${i}()`) }]),
    );
    expect(await uploadBundle(server.url, token, artifactBundle(many))).toMatchObject({
      state: "error",
      detail: expect.stringContaining("more than 5 files"),
    });
    // Asked again, the same bundle answers its recorded state without unpacking anything.
    expect(
      await uploadBundle(server.url, token, artifactBundle({ "zeros.js": { data: new Uint8Array(9 * MiB) } })),
    ).toEqual(zeros);
    expect(
      (
        await fetch(`${server.url}/api/0/organizations/acme/chunk-upload/`, {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);
  });

  it("two assembles of one bundle at once: one unpacks it, the other answers `assembling` or the result; one bundle row", async () => {
    const bundle = artifactBundle({ "twice.js.map": { data: randomBytes(3 * MiB) } });
    const uploaded = await uploadChunks(server.url, token, bundle);
    const replies = await Promise.all([assemble(server.url, token, uploaded), assemble(server.url, token, uploaded)]);
    expect(replies.map((reply) => reply.state).sort()).toSatisfy(
      (states: string[]) => states.includes("ok") && states.every((state) => state === "ok" || state === "assembling"),
    );
    expect(await assemble(server.url, token, uploaded)).toEqual({ state: "ok", detail: null, missingChunks: [] });
    const db = instance.faultline.container.resolve(tokens.Db);
    const rows = await sql<{
      n: string;
    }>`select count(*) as n from ${sql.table(`${instance.schema}.artifact_bundles`)} where checksum = ${sha1(bundle)}`.execute(
      db,
    );
    expect(Number(rows.rows[0]?.n)).toBe(1);
  });
});

describe("an assembly the store fails (#27)", () => {
  it("answers an error and leaves nothing `assembling`: the next call assembles the bundle", async () => {
    // A host's own store (docs/releases-and-source-maps.md) whose first write of a file's piece fails, as an object store can.
    const blobs = new Map<string, Uint8Array>();
    let failNextPiece = true;
    const flaky: ArtifactStore = {
      put: async (organizationId, list) => {
        if (list.some(({ data }) => data.byteLength === PIECE_BYTES) && failNextPiece) {
          failNextPiece = false;
          throw new Error("object store unavailable");
        }
        for (const { checksum, data } of list) blobs.set(`${organizationId}/${checksum}`, data.slice());
      },
      has: async (organizationId, checksums) =>
        new Set(checksums.filter((checksum) => blobs.has(`${organizationId}/${checksum}`))),
      get: async (organizationId, checksum) => blobs.get(`${organizationId}/${checksum}`) ?? null,
    };
    const store = definePlugin({
      id: "flaky-store",
      dependencies: ["releases"],
      register: (container) => registerValue(container, ArtifactStoreToken, flaky),
    });
    const instance = await createTestInstance({ worker: false, plugins: [store] });
    const server = await serveFaultline(instance.faultline);
    try {
      const acme = await seedOrganization(instance.faultline, "acme");
      const uploaded = await uploadChunks(
        server.url,
        acme.allScopesToken,
        artifactBundle({ "app.js.map": { data: randomBytes(2 * PIECE_BYTES) } }),
      );
      await expect(assemble(server.url, acme.allScopesToken, uploaded)).rejects.toThrow(/assemble answered 5\d\d/);
      expect(await assemble(server.url, acme.allScopesToken, uploaded)).toEqual({
        state: "ok",
        detail: null,
        missingChunks: [],
      });
      expect(await instance.faultline.api.releases.artifacts("acme")).toEqual([
        expect.objectContaining({ url: "~/app.js.map", size: 2 * PIECE_BYTES }),
      ]);
    } finally {
      await server.close();
      await instance.close();
    }
  });
});
