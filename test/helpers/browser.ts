import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

/** The Chromium binary the browser tests launch: `CHROMIUM_PATH`, else Debian's package. Read on each launch. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * Headless Debian Chromium through playwright-core (which downloads no browser). Absent, this
 * throws, naming the install command (the test fails): a browser test that skips itself would pass
 * in CI while testing nothing. README.md and docs/testing.md say so too.
 */
export async function launchChromium(): Promise<Browser> {
  const path = chromiumPath();
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary. ` +
        "The dashboard's browser tests need a real browser (docs/testing.md).",
    );
  }
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is; the serious and critical violations. axe is
 * evaluated through DevTools (not an injected <script>), so the page's own CSP stays in force.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
