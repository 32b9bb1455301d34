import { describe, expect, it } from "vitest";
import { browserOfUserAgent } from "../../src/plugins/inbound-filters/browsers.js";
import { compileGlobs, filterEvent, NO_FILTERS } from "../../src/plugins/inbound-filters/filter.js";

const withUserAgent = (userAgent: string) => ({ request: { headers: [["User-Agent", userAgent]] } });

describe("filterEvent", () => {
  it("keeps everything when no filter is on", () => {
    expect(filterEvent({ user: { ip_address: "127.0.0.1" }, release: "1.0" }, NO_FILTERS)).toBeNull();
  });

  it("names the first filter that matches", () => {
    const settings = { ...NO_FILTERS, localhost: true, releases: compileGlobs(["1.*"]) };
    expect(filterEvent({ user: { ip_address: "::1" }, release: "2.0" }, settings)).toBe("localhost");
    expect(filterEvent({ user: { ip_address: "::1" }, release: "1.4" }, settings)).toBe("release-version");
    expect(filterEvent({ request: { url: "http://app.localhost:8080/" } }, settings)).toBe("localhost");
    expect(filterEvent({ request: { url: "https://localhost.example.com/" } }, settings)).toBeNull();
  });

  it("filters legacy browsers by the subfilters turned on, from the user agent or the browser context", () => {
    const ie = { ...NO_FILTERS, legacyBrowsers: ["ie"] as const };
    expect(filterEvent(withUserAgent("Mozilla/5.0 (Windows NT 10.0; Trident/7.0; rv:11.0) like Gecko"), ie)).toBe(
      "legacy-browsers",
    );
    expect(filterEvent({ contexts: { browser: { name: "IE", version: "10.0" } } }, ie)).toBe("legacy-browsers");
    const safari = { ...NO_FILTERS, legacyBrowsers: ["safari_pre_6"] as const };
    const safari5 =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_6_8) AppleWebKit/534.59.10 (KHTML, like Gecko) Version/5.1.9 Safari/534.59.10";
    expect(filterEvent(withUserAgent(safari5), safari)).toBe("legacy-browsers");
    expect(filterEvent(withUserAgent(safari5), ie)).toBeNull();
  });

  it("tells browser families apart", () => {
    const chrome =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.90 Safari/537.36";
    expect(browserOfUserAgent(chrome)).toEqual({ family: "chrome", major: 60 });
    expect(browserOfUserAgent(`${chrome} Edg/120.0.0.0`)).toEqual({ family: "edge", major: 120 });
    expect(browserOfUserAgent(`${chrome} OPR/45.0`)).toEqual({ family: "opera", major: 45 });
    expect(browserOfUserAgent("Mozilla/5.0 (X11; rv:60.0) Gecko/20100101 Firefox/60.0")).toEqual({
      family: "firefox",
      major: 60,
    });
    expect(browserOfUserAgent("curl/8.0")).toBeNull();
  });

  it("matches error-message globs against `Type: value`, the value and the message, case-insensitively", () => {
    const settings = { ...NO_FILTERS, errorMessages: compileGlobs(["TypeError: *null*", "network ?rror"]) };
    const typeError = { exception: { values: [{ type: "TypeError", value: "a is NULL here" }] } };
    expect(filterEvent(typeError, settings)).toBe("error-message");
    expect(filterEvent({ message: "Network Error" }, settings)).toBe("error-message");
    expect(filterEvent({ logentry: { formatted: "network  error" } }, settings)).toBeNull();
    // Everything but `*` and `?` is literal.
    expect(compileGlobs(["a.b(c)"])?.test("a.b(c)")).toBe(true);
    expect(compileGlobs(["a.b(c)"])?.test("axb(c)")).toBe(false);
  });

  it("recognises browser-extension errors by message and by the failing frame's source", () => {
    const settings = { ...NO_FILTERS, browserExtensions: true };
    const frames = [{ abs_path: "https://shop.test/app.js" }, { abs_path: "moz-extension://123/inject.js" }];
    expect(
      filterEvent({ exception: { values: [{ type: "Error", value: "x", stacktrace: { frames } }] } }, settings),
    ).toBe("browser-extensions");
    expect(
      filterEvent({ exception: { values: [{ type: "Error", value: "top.GLOBALS is undefined" }] } }, settings),
    ).toBe("browser-extensions");
    expect(
      filterEvent(
        { exception: { values: [{ type: "Error", value: "x", stacktrace: { frames: frames.slice(0, 1) } }] } },
        settings,
      ),
    ).toBeNull();
  });

  it("recognises crawlers by their user agent", () => {
    const settings = { ...NO_FILTERS, webCrawlers: true };
    expect(
      filterEvent({ request: { headers: { "user-agent": "Mozilla/5.0 (compatible; bingbot/2.0)" } } }, settings),
    ).toBe("web-crawlers");
    expect(
      filterEvent(withUserAgent("Mozilla/5.0 (iPhone) Version/17.0 Mobile/15E148 Safari/604.1"), settings),
    ).toBeNull();
  });
});
