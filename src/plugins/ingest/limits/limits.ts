const MiB = 1024 * 1024;

/**
 * Ingest's own body limits (docs/security.md, "Input limits"). The compressed body limit equals the
 * envelope limit: compression never makes a body bigger in practice.
 */
export const INGEST_LIMITS = {
  /** Request body as sent (possibly compressed). */
  bodyBytes: 20 * MiB,
  /** One envelope after decompression. */
  envelopeBytes: 20 * MiB,
  /** One event (an `event` item, or a `/store/` body) after decompression. */
  eventBytes: 1 * MiB,
} as const;

/** How long a valid DSN key stays cached: disabling a key takes effect within this time. */
export const KEY_CACHE_TTL_MS = 10_000;

export const RATE_LIMIT_WINDOW_MS = 60_000;
