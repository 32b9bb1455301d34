import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chromiumPath, launchChromium } from "../helpers/browser.js";

/**
 * `npm test` needs Chromium for the dashboard's browser tests. Without it the failure must say how
 * to get one, and the README and docs/testing.md must say so before anyone runs the suite.
 */
const INSTALL = "apt-get install chromium";

describe("the browser tests' Chromium (test/helpers/browser.ts)", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is Debian's /usr/bin/chromium unless CHROMIUM_PATH names another binary", () => {
    vi.stubEnv("CHROMIUM_PATH", "");
    expect(chromiumPath()).toBe("/usr/bin/chromium");
    vi.stubEnv("CHROMIUM_PATH", "/opt/chrome/chrome");
    expect(chromiumPath()).toBe("/opt/chrome/chrome");
  });

  it("missing, fails with the path it looked at, the install command and the variable", async () => {
    const missing = "/nonexistent/faultline-test/chromium";
    vi.stubEnv("CHROMIUM_PATH", missing);
    const error = await launchChromium().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(`Chromium not found at ${missing}`);
    expect(message).toContain(INSTALL);
    expect(message).toContain("CHROMIUM_PATH");
  });

  it("README.md and docs/testing.md say that npm test needs it, and how to install it", () => {
    for (const doc of ["README.md", "docs/testing.md"]) {
      const text = readFileSync(new URL(`../../${doc}`, import.meta.url), "utf8");
      expect(text, doc).toContain(INSTALL);
      expect(text, doc).toContain("CHROMIUM_PATH");
    }
  });
});
