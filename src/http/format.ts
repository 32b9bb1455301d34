/** ISO 8601 UTC with milliseconds, the API's timestamp format. */
export function isoDate(date: Date): string {
  return date.toISOString();
}

/** Integers are serialised as strings in API responses (Sentry's convention). */
export function idString(id: number | string | bigint): string {
  return String(id);
}

/** A URL-safe slug from a display name. */
export function slugify(name: string): string {
  return (
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 50) || "app"
  );
}
