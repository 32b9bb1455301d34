import { describe, expect, it } from "vitest";
import { SourceMapCache } from "../../src/plugins/releases/symbolicate/cache.js";
import { candidateUrls } from "../../src/plugins/releases/symbolicate/lookup.js";

const map = (name: string) =>
  new TextEncoder().encode(
    JSON.stringify({ version: 3, sources: [name], sourcesContent: ["a\\nb"], names: [], mappings: "AAAA" }),
  );

describe("source map cache", () => {
  it("parses once, evicts the least recently used past its byte bound, and remembers broken maps", async () => {
    const one = map("one.ts");
    const cache = new SourceMapCache(one.byteLength * 2);
    let loads = 0;
    const load = (data: Uint8Array) => async () => {
      loads += 1;
      return { data };
    };
    expect((await cache.get("a", load(one))).ok).toBe(true);
    await cache.get("a", load(one));
    expect(loads).toBe(1);
    await cache.get("b", load(map("two.ts")));
    await cache.get("a", load(one)); // a is now the most recent
    await cache.get("c", load(map("six.ts")));
    expect(cache.size).toBe(2);
    loads = 0;
    await cache.get("a", load(one));
    expect(loads).toBe(0);
    await cache.get("b", load(map("two.ts")));
    expect(loads).toBe(1);
    const broken = await cache.get("d", load(new TextEncoder().encode("{not json")));
    expect(broken).toMatchObject({ ok: false, reason: expect.stringContaining("invalid source map") });
  });

  it("gives the `~/` candidates of a URL and of a file path, most specific first", () => {
    expect(candidateUrls("https://shop.test/static/js/app.js?v=1#x")).toEqual([
      "https://shop.test/static/js/app.js",
      "~/static/js/app.js",
      "~/js/app.js",
      "~/app.js",
    ]);
    expect(candidateUrls("/srv/app/dist/main.js")).toEqual([
      "/srv/app/dist/main.js",
      "~/srv/app/dist/main.js",
      "~/app/dist/main.js",
      "~/dist/main.js",
      "~/main.js",
    ]);
  });
});
