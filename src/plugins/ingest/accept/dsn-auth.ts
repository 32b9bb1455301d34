/** Header names that carry Sentry's auth parameters; `X-Svc-Auth` is the branded form. */
const AUTH_HEADERS = ["x-sentry-auth", "x-svc-auth"] as const;

/**
 * Parses `Sentry sentry_key=abc, sentry_version=7, sentry_client=x/1.0` into its parameters.
 * The `Sentry ` prefix is optional and case-insensitive; values may be quoted.
 */
export function parseSentryAuth(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const part of header
    .trim()
    .replace(/^sentry\s+/i, "")
    .split(",")) {
    const separator = part.indexOf("=");
    if (separator === -1) continue;
    const name = part.slice(0, separator).trim().toLowerCase();
    const value = part
      .slice(separator + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (name !== "") params[name] = value;
  }
  return params;
}

/**
 * The public key a request names outside its body: `X-Sentry-Auth` / `X-Svc-Auth`, then
 * `Authorization: Sentry …` (old SDKs), then the `sentry_key` query parameter (@sentry/node 11).
 */
export function publicKeyFromRequest(headers: Headers, query: URLSearchParams): string | null {
  for (const name of AUTH_HEADERS) {
    const key = keyIn(headers.get(name));
    if (key) return key;
  }
  const authorization = headers.get("authorization");
  if (authorization && /^sentry\s/i.test(authorization)) {
    const key = keyIn(authorization);
    if (key) return key;
  }
  return nonEmpty(query.get("sentry_key"));
}

/** The public key of a DSN (`https://<public_key>@host/prefix/<project_id>`), or null. */
export function publicKeyFromDsn(dsn: unknown): string | null {
  if (typeof dsn !== "string") return null;
  try {
    return nonEmpty(decodeURIComponent(new URL(dsn).username));
  } catch {
    return null;
  }
}

function keyIn(header: string | null): string | null {
  return header ? nonEmpty(parseSentryAuth(header).sentry_key) : null;
}

function nonEmpty(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
