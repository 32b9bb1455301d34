import { registerFactory } from "../../container/container.js";
import { Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EventPayloadProcessorToken, EventReleaseReaderToken } from "../event-store/index.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { AbsentMaps } from "./symbolicate/absent-maps.js";
import { SourceMapCache } from "./symbolicate/cache.js";
import { SourceMapProcessor } from "./symbolicate/processor.js";
import { listArtifactFiles } from "./artifacts/files.js";
import { artifactEndpoints } from "./artifacts/routes.js";
import { OneAtATime } from "./artifacts/one-at-a-time.js";
import { PostgresArtifactStore } from "./artifacts/store.js";
import { releasesMigrations } from "./migrations.js";
import { ReleaseRepository } from "./repository.js";
import { releaseEndpoints } from "./routes.js";
import { serializeRelease } from "./serialize.js";
import {
  AbsentMapsToken,
  ArtifactStoreToken,
  ChunkUploadsToken,
  ReleaseRepositoryToken,
  SourceMapCacheToken,
} from "./tokens.js";

/** Releases and deploys (Sentry's API), artifact bundles uploaded by sentry-cli, and source-map symbolication. */
export const releasesPlugin = definePlugin({
  id: "releases",
  dependencies: ["organizations", "event-store", "issues"],
  migrations: releasesMigrations,
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, ReleaseRepositoryToken, () => new ReleaseRepository(db));
    // An event's `release` object (docs/sentry-compatibility.md, "Response shapes"), for the event store's reads.
    registerFactory(container, EventReleaseReaderToken, (c) => ({
      releases: async (organizationId, versions) => {
        const found = await c.resolve(ReleaseRepositoryToken).findMany(organizationId, versions);
        return new Map(found.map((release) => [release.version, serializeRelease(release)]));
      },
    }));
    registerFactory(container, ArtifactStoreToken, () => new PostgresArtifactStore(db));
    // Raw maps held parsed at most: 64 MiB (a few large bundles), least recently used out first.
    registerFactory(container, SourceMapCacheToken, () => new SourceMapCache(64 * 1024 * 1024));
    registerFactory(container, AbsentMapsToken, () => new AbsentMaps());
    registerFactory(container, ChunkUploadsToken, () => new OneAtATime());
    registerFactory(
      container,
      EventPayloadProcessorToken,
      (c) =>
        new SourceMapProcessor(
          c.resolve(ArtifactStoreToken),
          c.resolve(SourceMapCacheToken),
          c.resolve(AbsentMapsToken),
        ),
    );
  },
  endpoints: [...releaseEndpoints, ...artifactEndpoints],
  api: (container) => ({
    releases: {
      /** The artifact files uploaded for an organization (newest bundle first), without their contents. */
      artifacts: async (organization: string | number) => {
        const found = await container.resolve(OrganizationServiceToken).getOrganization(organization);
        return found ? listArtifactFiles(container.resolve(Db), Number(found.id)) : [];
      },
    },
  }),
});

export { ArtifactStoreToken, ReleaseRepositoryToken } from "./tokens.js";
export {
  ReleaseDetailContributorToken,
  releaseProjectKey,
  type ReleaseDetailContributor,
  type ReleaseDetailRequest,
  type ReleaseProjectRef,
} from "./contributors.js";
export type { ArtifactStore, StoreContext } from "./artifacts/store.js";
