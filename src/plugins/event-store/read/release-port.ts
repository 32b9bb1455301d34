import type { InjectionToken } from "tsyringe";

/** Sentry's release objects by version (`read/releases.ts`). */
export type ReleaseObjects = ReadonlyMap<string, Record<string, unknown>>;

/**
 * The port through which an event's `release` object is read from the plugin that owns release
 * data (the releases plugin registers it under {@link EventReleaseReaderToken}); without one an
 * event's release carries its version and Sentry's empty values.
 */
export interface EventReleaseReader {
  /** The organization's releases among `versions`, serialized as Sentry's release; unknown versions are left out. */
  releases(organizationId: number, versions: readonly string[]): Promise<ReleaseObjects>;
}

export const EventReleaseReaderToken: InjectionToken<EventReleaseReader> = Symbol("faultline.EventReleaseReader");
