import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TOKEN_PREFIXES } from "../../src/auth/token-secret.js";

/**
 * README.md and docs/*.md stay true to the code they describe: every relative link and `#anchor`
 * resolves (anchors by GitHub's heading slugs), sample tokens carry a prefix Faultline issues, and
 * no code block uses an export that only survives as a deprecated alias.
 */
const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The page with fenced code blocks blanked out (line numbers kept), and the blocks themselves. */
function split(markdown: string): { prose: string; code: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  let block: string[] = [];
  for (const line of markdown.split("\n")) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      block = [];
      prose.push("");
    } else if (
      fence !== undefined &&
      marker &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.trim() === marker
    ) {
      fence = undefined;
      code.push(block.join("\n"));
      prose.push("");
    } else if (fence !== undefined) {
      block.push(line);
      prose.push("");
    } else {
      prose.push(line);
    }
  }
  return { prose: prose.join("\n"), code };
}

/** Inline code spans replaced by their text without backticks (link text may hold code). */
const withoutCodeSpans = (text: string) =>
  text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, inner: string) => inner.replace(/[[\]()]/g, " "));

/** GitHub's heading anchor (github-slugger): the rendered text, lower-cased, punctuation but `-` and `_` dropped, spaces to `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/`/g, "");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

const anchorCache = new Map<string, Set<string>>();
/** Every anchor GitHub renders for a Markdown page: headings (duplicates get -1, -2, …) and explicit `id`/`name` attributes. */
export function anchors(markdown: string): Set<string> {
  const { prose } = split(markdown);
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose.split("\n")) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of prose.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) result.add(match[1] ?? "");
  return result;
}
const anchorsOf = (path: string) => {
  let found = anchorCache.get(path);
  if (!found) anchorCache.set(path, (found = anchors(readFileSync(path, "utf8"))));
  return found;
};

/** Link targets in a page's prose: inline links and images, reference definitions, HTML href/src. */
export function links(markdown: string): Array<{ line: number; target: string }> {
  const prose = withoutCodeSpans(split(markdown).prose);
  const found: Array<{ line: number; target: string }> = [];
  const add = (index: number, raw: string) => {
    const target = raw
      .trim()
      .replace(/^<(.*)>$/, "$1")
      .replace(/\s+"[^"]*"$/, "");
    found.push({ line: prose.slice(0, index).split("\n").length, target });
  };
  for (const match of prose.matchAll(/\]\(([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+"[^"]*")?)\)/g))
    add(match.index, match[1] ?? "");
  for (const match of prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*(\S+)/gm)) add(match.index, match[1] ?? "");
  for (const match of prose.matchAll(/<[a-z]+\s[^>]*\b(?:href|src)="([^"]+)"/gi)) add(match.index, match[1] ?? "");
  return found;
}

/** Why a relative link from `page` does not resolve, or undefined when it does. */
function broken(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined; // https:, mailto:, …
  const hash = target.indexOf("#");
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file =
    path === "" ? join(root, page) : path.startsWith("/") ? join(root, path) : resolve(dirname(join(root, page)), path);
  if (relative(root, file).startsWith("..")) return `points outside the repository`;
  if (!existsSync(file)) return `no file ${relative(root, file)}`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory()) return `an anchor on a directory`;
  if (file.endsWith(".md"))
    return anchorsOf(file).has(anchor) ? undefined : `no heading #${anchor} in ${relative(root, file)}`;
  // GitHub's line anchors on a source file.
  return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `#${anchor} on a file that is not Markdown`;
}

describe("GitHub heading slugs (the rules the link check relies on)", () => {
  it("drops punctuation and code marks, keeps hyphens and underscores, and numbers duplicates", () => {
    expect(githubSlug("Installing in your app")).toBe("installing-in-your-app");
    expect(githubSlug("`faultline/testing`")).toBe("faultlinetesting");
    expect(githubSlug("Releases, deploys & source maps (sentry-cli)")).toBe("releases-deploys--source-maps-sentry-cli");
    expect(githubSlug("`retention_days`: what it keeps")).toBe("retention_days-what-it-keeps");
    expect(githubSlug("[Linked](x.md) heading")).toBe("linked-heading");
    expect([...anchors("# A\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n")]).toEqual([
      "a",
      "setup",
      "setup-1",
    ]);
  });

  it("finds links in prose but not in code, and a broken anchor is reported", () => {
    const page =
      'See [x](docs/a.md#b), ![img](p.png), `[not](a link)`, <a href="c.md">c</a>.\n\n```md\n[code](d.md)\n```\n\n[ref]: e.md#f\n';
    expect(links(page).map((link) => link.target)).toEqual(["docs/a.md#b", "p.png", "e.md#f", "c.md"]);
    expect(broken("README.md", "docs/getting-started.md#installing-in-your-app")).toBeUndefined();
    expect(broken("README.md", "docs/getting-started.md#no-such-heading")).toMatch(/no heading/);
    expect(broken("README.md", "docs/no-such-page.md")).toMatch(/no file/);
  });
});

describe("README.md and docs/*.md", () => {
  it("every relative link and #anchor resolves", () => {
    const failures = pages.flatMap((page) =>
      links(read(page)).flatMap(({ line, target }) => {
        const why = broken(page, target);
        return why ? [`${page}:${line}: (${target}) ${why}`] : [];
      }),
    );
    expect(failures).toEqual([]);
  });

  it(`sample tokens use a prefix Faultline issues (${Object.values(TOKEN_PREFIXES).join(", ")})`, () => {
    const real = new Set(Object.values(TOKEN_PREFIXES));
    const failures = pages.flatMap((page) =>
      read(page)
        .split("\n")
        .flatMap((text, index) =>
          [...text.matchAll(/\bfl[a-z]_/g)]
            .filter((match) => !real.has(match[0]))
            .map((match) => `${page}:${index + 1}: ${match[0]}…`),
        ),
    );
    expect(failures).toEqual([]);
  });

  it("docs/sentry-compatibility.md lists every sentry-cli command the tests run as working", () => {
    // The commands the real binary runs in the tests: `cli([...])` / `sentryCli([...])`, literal arguments.
    const tested = new Set(
      ["test/compat/sentry-cli.test.ts", "test/integration/releases.test.ts"].flatMap((file) =>
        [...read(file).matchAll(/\b(?:cli|sentryCli)\(\["([a-z-]+)"(?:,\s*"([a-z-]+)")?/g)].map((m) =>
          m[2] ? `${m[1]} ${m[2]}` : (m[1] ?? ""),
        ),
      ),
    );
    expect(tested.size).toBeGreaterThan(10);
    // Its table: | `sentry-cli releases new\|finalize` | yes | … |, one or more commands per row.
    const works = new Map<string, string>();
    for (const row of read("docs/sentry-compatibility.md").matchAll(/^\| (.*?) \| (yes|no|not tested) \|/gm)) {
      for (const [, code] of (row[1] ?? "").matchAll(/`([^`]+)`/g)) {
        const [command, sub] = (code ?? "").replace(/^sentry-cli /, "").split(/\s+/);
        const subs = sub && /^[a-z]/.test(sub) ? sub.split("\\|") : [undefined];
        for (const name of subs) works.set(name ? `${command} ${name}` : (command ?? ""), row[2] ?? "");
      }
    }
    // A row may name the whole group (`sentry-cli info`, `sentry-cli releases …`).
    const listed = (command: string) => works.get(command) ?? works.get(command.split(" ")[0] ?? "") ?? "not listed";
    expect(
      [...tested]
        .filter((command) => listed(command) !== "yes")
        .map((command) => `sentry-cli ${command}: ${listed(command)}`),
    ).toEqual([]);
  });

  it("no code block uses a deprecated export (the docs show the current names)", () => {
    // adapters/*/index.ts keeps these as @deprecated aliases; docs/http.md names them in prose, as deprecated.
    const deprecated = ["faultlineExpress", "faultlineFastify", "createNodeHandler"];
    const failures = pages.flatMap((page) =>
      split(read(page)).code.flatMap((block) =>
        deprecated.filter((name) => new RegExp(`\\b${name}\\b`).test(block)).map((name) => `${page}: ${name}`),
      ),
    );
    expect(failures).toEqual([]);
  });
});
