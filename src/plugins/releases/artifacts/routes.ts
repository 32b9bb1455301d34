import { z } from "zod";
import { Clock, Db, Options } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { badRequest } from "../../../http/errors.js";
import { AbsentMapsToken, ArtifactStoreToken, ChunkUploadsToken, ReleaseRepositoryToken } from "../tokens.js";
import { assembleBundle } from "./assemble.js";
import { CHUNK_SIZE, CHUNKS_PER_REQUEST, MAX_FILE_SIZE, MAX_REQUEST_SIZE, readChunks } from "./chunks.js";

const CHUNK_UPLOAD = "/api/0/organizations/{organization_id_or_slug}/chunk-upload/";
const WRITE = ["project:write", "project:releases"] as const;
const sha1Hex = z.string().regex(/^[0-9a-f]{40}$/, "a SHA-1 checksum: 40 lowercase hex digits");

export const chunkUploadOptions = defineEndpoint({
  method: "GET",
  path: CHUNK_UPLOAD,
  operationId: "artifacts.chunkUploadOptions",
  summary: "Chunk upload parameters for sentry-cli (chunk size, hash, compression, what can be assembled)",
  scopes: WRITE,
  handler: ({ url }) => ({
    body: {
      // Absolute, with the host's mount prefix: sentry-cli posts the chunks there.
      url: `${url.origin}${url.pathname}`,
      chunkSize: CHUNK_SIZE,
      chunksPerRequest: CHUNKS_PER_REQUEST,
      maxFileSize: MAX_FILE_SIZE,
      maxRequestSize: MAX_REQUEST_SIZE,
      concurrency: 4,
      hashAlgorithm: "sha1",
      compression: ["gzip"],
      accept: ["artifact_bundles", "artifact_bundles_v2"],
    },
  }),
});

export const uploadChunks = defineEndpoint({
  method: "POST",
  path: CHUNK_UPLOAD,
  operationId: "artifacts.uploadChunks",
  summary: "Upload chunks (multipart parts `file` or `file_gzip`, each named by its SHA-1)",
  scopes: WRITE,
  rawBody: true,
  // Parts are gzip (smaller than the chunks) plus multipart framing.
  bodyLimit: MAX_REQUEST_SIZE + 64 * 1024,
  handler: async ({ organization, request, rawBody, container }) => {
    await container.resolve(ChunkUploadsToken).run(async () => {
      const chunks = await readChunks(rawBody ?? new Uint8Array(), request.headers.get("content-type"));
      await container.resolve(ArtifactStoreToken).put(organization.id, chunks);
    });
    return { status: 200 };
  },
});

const assembleBody = z.object({
  checksum: sha1Hex,
  chunks: z.array(sha1Hex).max(Math.ceil(MAX_FILE_SIZE / CHUNK_SIZE)),
  projects: z.array(z.string().min(1)).max(1000),
  version: z.string().min(1).max(200).nullish(),
  dist: z.string().min(1).max(64).nullish(),
});

export const assembleArtifactBundle = defineEndpoint({
  method: "POST",
  path: "/api/0/organizations/{organization_id_or_slug}/artifactbundle/assemble/",
  operationId: "artifacts.assembleBundle",
  summary: "Assemble an artifact bundle from uploaded chunks; call again to poll its state",
  scopes: WRITE,
  body: assembleBody,
  handler: async ({ organization, body, container }) => {
    if (body.projects.length === 0)
      throw badRequest("You need to specify at least one project", {
        projects: ["You need to specify at least one project"],
      });
    const projectIds = await container
      .resolve(ReleaseRepositoryToken)
      .projectIds(organization.id, [...new Set(body.projects)]);
    const { maxBundleBytes, maxBundleFiles } = container.resolve(Options).releases;
    const reply = await assembleBundle(
      () => container.resolve(Db),
      container.resolve(ArtifactStoreToken),
      organization.id,
      {
        checksum: body.checksum,
        chunks: body.chunks,
        projectIds,
        version: body.version ?? null,
        dist: body.dist ?? null,
      },
      container.resolve(Clock).now(),
      { maxBytes: maxBundleBytes, maxEntries: maxBundleFiles },
    );
    if (reply.state === "ok") container.resolve(AbsentMapsToken).clear();
    return { body: reply };
  },
});

export const artifactEndpoints = [chunkUploadOptions, uploadChunks, assembleArtifactBundle];
