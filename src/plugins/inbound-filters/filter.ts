import {
  BROWSER_EXTENSION_MESSAGES,
  BROWSER_EXTENSION_SOURCES,
  browserOfContext,
  browserOfUserAgent,
  isLegacyBrowser,
  type LegacyBrowserSubfilter,
  WEB_CRAWLER_USER_AGENTS,
} from "./browsers.js";

/** Why an event was filtered: the outcome reasons Sentry counts filtered events under. */
export type FilterReason =
  "browser-extensions" | "localhost" | "legacy-browsers" | "web-crawlers" | "error-message" | "release-version";

/**
 * A project's inbound filters, ready to apply: plain data (patterns compiled to `RegExp`, which
 * survives structured cloning), so the decision can run wherever the accept path's CPU work runs.
 */
export interface InboundFilterSettings {
  browserExtensions: boolean;
  localhost: boolean;
  webCrawlers: boolean;
  /** The legacy-browsers subfilters turned on; empty when the filter is off. */
  legacyBrowsers: readonly LegacyBrowserSubfilter[];
  /** Every error-message pattern as one expression; null when there is none. */
  errorMessages: RegExp | null;
  /** Every release pattern as one expression; null when there is none. */
  releases: RegExp | null;
}

/** A project without filters: every event is kept. */
export const NO_FILTERS: InboundFilterSettings = {
  browserExtensions: false,
  localhost: false,
  webCrawlers: false,
  legacyBrowsers: [],
  errorMessages: null,
  releases: null,
};

/**
 * Sentry's glob patterns as one case-insensitive expression matching a whole string: `*` is any
 * run of characters, `?` any one; everything else is literal.
 */
export function compileGlobs(patterns: readonly string[]): RegExp | null {
  const sources = patterns
    .filter((pattern) => pattern.length > 0)
    .map((pattern) =>
      pattern
        .split(/([*?])/)
        .map((part) => (part === "*" ? "[\\s\\S]*" : part === "?" ? "[\\s\\S]" : escapeRegExp(part)))
        .join(""),
    );
  return sources.length === 0 ? null : new RegExp(`^(?:${sources.join("|")})$`, "i");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether a project's inbound filters refuse an event, and why; null keeps it. Pure (no I/O,
 * no clock), so it may run per event on the hot path or in a worker thread. The checks run
 * cheapest first; the first that matches names the reason.
 */
export function filterEvent(event: Record<string, unknown>, settings: InboundFilterSettings): FilterReason | null {
  if (settings.releases && typeof event.release === "string" && settings.releases.test(event.release))
    return "release-version";
  if (settings.localhost && isFromLocalhost(event)) return "localhost";
  const userAgent = settings.webCrawlers || settings.legacyBrowsers.length > 0 ? userAgentOf(event) : null;
  if (settings.webCrawlers && userAgent !== null && WEB_CRAWLER_USER_AGENTS.test(userAgent)) return "web-crawlers";
  if (settings.legacyBrowsers.length > 0 && isFromLegacyBrowser(event, userAgent, settings.legacyBrowsers))
    return "legacy-browsers";
  if (settings.browserExtensions && isFromBrowserExtension(event)) return "browser-extensions";
  const patterns = settings.errorMessages;
  if (patterns && messagesOf(event).some((message) => patterns.test(message))) return "error-message";
  return null;
}

const LOCAL_ADDRESSES = new Set(["127.0.0.1", "::1"]);
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isFromLocalhost(event: Record<string, unknown>): boolean {
  const address = recordOf(event.user).ip_address;
  if (typeof address === "string" && LOCAL_ADDRESSES.has(address)) return true;
  const url = recordOf(event.request).url;
  if (typeof url !== "string" || !URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return LOCAL_HOSTS.has(host) || host.endsWith(".localhost");
}

function isFromLegacyBrowser(
  event: Record<string, unknown>,
  userAgent: string | null,
  subfilters: readonly LegacyBrowserSubfilter[],
): boolean {
  const context = recordOf(recordOf(event.contexts).browser);
  const browser =
    userAgent !== null
      ? browserOfUserAgent(userAgent)
      : typeof context.name === "string" && typeof context.version === "string"
        ? browserOfContext(context.name, context.version)
        : null;
  return browser !== null && isLegacyBrowser(browser, subfilters);
}

function isFromBrowserExtension(event: Record<string, unknown>): boolean {
  const [first] = exceptionsOf(event);
  if (!first) return false;
  const message = [first.type, first.value].filter((part) => typeof part === "string").join(": ");
  if (BROWSER_EXTENSION_MESSAGES.test(message)) return true;
  // Sentry's frames run from the outermost call to the one that threw: the last is where it failed.
  const frames = recordOf(first.stacktrace).frames;
  const innermost = Array.isArray(frames) ? recordOf(frames.at(-1)) : {};
  const source = innermost.abs_path ?? innermost.filename;
  return typeof source === "string" && BROWSER_EXTENSION_SOURCES.test(source);
}

/** The `User-Agent` request header, in either of the shapes SDKs send headers in. */
function userAgentOf(event: Record<string, unknown>): string | null {
  const headers = recordOf(event.request).headers;
  if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (Array.isArray(pair) && String(pair[0]).toLowerCase() === "user-agent" && typeof pair[1] === "string")
        return pair[1];
    }
    return null;
  }
  for (const [name, value] of Object.entries(recordOf(headers))) {
    if (name.toLowerCase() === "user-agent" && typeof value === "string") return value;
  }
  return null;
}

/** What error-message patterns are matched against: each exception as `Type: value`, and the message. */
function messagesOf(event: Record<string, unknown>): string[] {
  const messages: string[] = [];
  for (const exception of exceptionsOf(event)) {
    const parts = [exception.type, exception.value].filter((part) => typeof part === "string");
    if (parts.length > 0) messages.push(parts.join(": "));
  }
  for (const message of [event.message, event.logentry]) {
    if (typeof message === "string") messages.push(message);
    const entry = recordOf(message);
    for (const text of [entry.formatted, entry.message]) if (typeof text === "string") messages.push(text);
  }
  return messages;
}

/** `exception.values` (or the older bare list), as records. */
function exceptionsOf(event: Record<string, unknown>): Array<Record<string, unknown>> {
  const exception = event.exception;
  const values = Array.isArray(exception) ? exception : recordOf(exception).values;
  return Array.isArray(values) ? values.map(recordOf) : [];
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
