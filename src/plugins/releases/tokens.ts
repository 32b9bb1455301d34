import type { InjectionToken } from "tsyringe";
import type { OneAtATime } from "./artifacts/one-at-a-time.js";
import type { ArtifactStore } from "./artifacts/store.js";
import type { ReleaseRepository } from "./repository.js";
import type { AbsentMaps } from "./symbolicate/absent-maps.js";
import type { SourceMapCache } from "./symbolicate/cache.js";

export const ReleaseRepositoryToken: InjectionToken<ReleaseRepository> = Symbol("faultline.ReleaseRepository");
/** Where uploaded chunks and files live; PostgreSQL by default. A host plugin may register its own. */
export const ArtifactStoreToken: InjectionToken<ArtifactStore> = Symbol("faultline.ArtifactStore");
export const SourceMapCacheToken: InjectionToken<SourceMapCache> = Symbol("faultline.SourceMapCache");
/** Lookups that found no artifacts, remembered briefly (see AbsentMaps). */
export const AbsentMapsToken: InjectionToken<AbsentMaps> = Symbol("faultline.AbsentMaps");
/** Chunk uploads of this instance, stored one request at a time (see OneAtATime). */
export const ChunkUploadsToken: InjectionToken<OneAtATime> = Symbol("faultline.ChunkUploads");
