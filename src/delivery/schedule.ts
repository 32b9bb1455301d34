/** Standard Webhooks' example schedule, in seconds: ten attempts over about three days. */
export const DEFAULT_RETRY_DELAYS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400] as const;

const MAX_RETRY_AFTER_SECONDS = 86_400;
const RETRIED_STATUSES = new Set([408, 425, 429]);

/** Network errors, timeouts, 408, 425, 429 and 5xx are retried; other 4xx and 3xx are not. */
export function isRetryable(status: number): boolean {
  return status === 0 || status >= 500 || RETRIED_STATUSES.has(status);
}

/**
 * When to try again after `attempts` attempts, or null when they are used up. `Retry-After` (on
 * 429/503) wins over the schedule, capped at 24 h; scheduled delays get ±10 % jitter.
 */
export function nextAttemptDelayMs(
  attempts: number,
  delays: readonly number[],
  retryAfterSeconds: number | null,
  random = Math.random,
): number | null {
  const scheduled = delays[attempts - 1];
  if (scheduled === undefined) return null;
  if (retryAfterSeconds !== null) return Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000;
  const jitter = 1 + (random() * 2 - 1) * 0.1;
  return Math.round(scheduled * 1000 * jitter);
}

/** `Retry-After` as seconds (a number or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
