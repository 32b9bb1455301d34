// What the inbound filters know about browsers: families and versions from a user agent, the
// legacy-browser subfilters Sentry offers, and the user agents of known crawlers.

/** A browser family and its major version, as the legacy-browsers filter needs it. */
export interface BrowserVersion {
  family: BrowserFamily;
  major: number;
}

export type BrowserFamily = "ie" | "edge" | "safari" | "firefox" | "chrome" | "opera" | "opera_mini" | "android";

/**
 * User-agent markers, most specific first: Edge and Opera also say "Chrome", Chrome also says
 * "Safari", Android's own browser says "Version/" like Safari.
 */
const FAMILY_PATTERNS: ReadonlyArray<[BrowserFamily, RegExp]> = [
  ["ie", /MSIE (\d+)/],
  ["ie", /Trident\/[\d.]+;.*rv:(\d+)/],
  ["edge", /Edge?(?:A|iOS)?\/(\d+)/],
  ["opera_mini", /Opera Mini\/(\d+)/],
  ["opera", /OPR\/(\d+)/],
  ["opera", /Opera\/.*Version\/(\d+)/],
  ["opera", /Opera[/ ](\d+)/],
  ["firefox", /(?:Firefox|FxiOS)\/(\d+)/],
  ["chrome", /(?:Chrome|CriOS)\/(\d+)/],
  ["android", /Android (\d+).*Version\/\d/],
  ["safari", /Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
];

/** The family and major version a user agent names; null for one the filter does not know. */
export function browserOfUserAgent(userAgent: string): BrowserVersion | null {
  for (const [family, pattern] of FAMILY_PATTERNS) {
    const match = pattern.exec(userAgent);
    if (match) return { family, major: Number(match[1]) };
  }
  return null;
}

/** `contexts.browser.name` as SDKs report it → the family. */
const CONTEXT_NAMES: Readonly<Record<string, BrowserFamily>> = {
  ie: "ie",
  "internet explorer": "ie",
  edge: "edge",
  "microsoft edge": "edge",
  safari: "safari",
  "mobile safari": "safari",
  firefox: "firefox",
  chrome: "chrome",
  "chrome mobile": "chrome",
  opera: "opera",
  "opera mini": "opera_mini",
  android: "android",
};

/** The family and major version of a browser context (`{name, version}`), when the event has no user agent. */
export function browserOfContext(name: string, version: string): BrowserVersion | null {
  const family = CONTEXT_NAMES[name.toLowerCase()];
  const major = Number.parseInt(version, 10);
  return family === undefined || Number.isNaN(major) ? null : { family, major };
}

/**
 * The legacy-browsers subfilters: each family's versions considered legacy (Faultline's
 * cut-offs, modelled on Sentry's current ones), then the older, version-specific subfilters
 * Sentry still accepts.
 */
const LEGACY_SUBFILTERS = {
  ie: { family: "ie", below: 12 },
  edge: { family: "edge", below: 79 },
  safari: { family: "safari", below: 12 },
  firefox: { family: "firefox", below: 67 },
  chrome: { family: "chrome", below: 63 },
  opera: { family: "opera", below: 50 },
  opera_mini: { family: "opera_mini", below: 35 },
  android: { family: "android", below: 4 },
  ie_pre_9: { family: "ie", below: 9 },
  ie9: { family: "ie", only: 9 },
  ie10: { family: "ie", only: 10 },
  ie11: { family: "ie", only: 11 },
  opera_pre_15: { family: "opera", below: 15 },
  opera_mini_pre_8: { family: "opera_mini", below: 8 },
  android_pre_4: { family: "android", below: 4 },
  safari_pre_6: { family: "safari", below: 6 },
} as const satisfies Record<string, { family: BrowserFamily; below?: number; only?: number }>;

export type LegacyBrowserSubfilter = keyof typeof LEGACY_SUBFILTERS;

export const LEGACY_BROWSER_SUBFILTERS = Object.keys(LEGACY_SUBFILTERS) as LegacyBrowserSubfilter[];

/** What `active: true` on the legacy-browsers filter turns on: every family, no version-specific subfilter. */
export const ALL_LEGACY_FAMILIES: readonly LegacyBrowserSubfilter[] = [
  "ie",
  "edge",
  "safari",
  "firefox",
  "chrome",
  "opera",
  "opera_mini",
  "android",
];

/** Whether `browser` is legacy by one of the `subfilters` turned on. */
export function isLegacyBrowser(browser: BrowserVersion, subfilters: readonly LegacyBrowserSubfilter[]): boolean {
  return subfilters.some((id) => {
    const rule: { family: BrowserFamily; below?: number; only?: number } = LEGACY_SUBFILTERS[id];
    if (rule.family !== browser.family) return false;
    return rule.only !== undefined ? browser.major === rule.only : browser.major < (rule.below ?? 0);
  });
}

/** User agents of search engines, link previewers, uptime checkers and other bots (case-insensitive). */
export const WEB_CRAWLER_USER_AGENTS =
  /Mediapartners-Google|AdsBot-Google|Googlebot|FeedFetcher-Google|Storebot-Google|Google-InspectionTool|BingBot|BingPreview|Baiduspider|Slurp|Sogou|facebookexternalhit|meta-externalagent|ia_archiver|bots?[/\s);]|spider[/\s);]|Slack|Calypso AppEngine|pingdom|lyticsbot|AdsBot|YandexBot|DuckDuckBot|Applebot|GPTBot|PetalBot|Bytespider|AhrefsBot|SemrushBot|HeadlessChrome/i;

/** Error messages caused by browser extensions and injected scripts, not by the page's own code. */
export const BROWSER_EXTENSION_MESSAGES =
  /top\.GLOBALS|originalCreateNotification|canvas\.contentDocument|MyApp_RemoveAllHighlights|http:\/\/tt\.epicplay\.com|Can't find variable: ZiteReader|jigsaw is not defined|ComboSearch is not defined|http:\/\/loading\.retry\.widdit\.com\/|atomicFindClose|fb_xd_fragment|bmi_SafeAddOnload|EBCallBackMessageReceived|conduitPage|plugin\.setSuspendState is not a function|Extension context invalidated|webkit-masked-url:/;

/** Script URLs of browser extensions and known injected third-party scripts. */
export const BROWSER_EXTENSION_SOURCES =
  /graph\.facebook\.com|connect\.facebook\.net|eatdifferent\.com\.woopra-ns\.com|static\.woopra\.com\/js\/woopra\.js|^chrome(?:-extension)?:\/\/|^moz-extension:\/\/|^safari(?:-web)?-extension:|^ms-browser-extension:\/\/|^resource:\/\/|127\.0\.0\.1:4001\/isrunning|webappstoolbarba\.texthelp\.com\/|metrics\.itunes\.apple\.com\.edgesuite\.net\/|kaspersky-labs\.com/;
