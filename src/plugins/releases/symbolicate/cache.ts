import type * as TraceMapping from "@jridgewell/trace-mapping";
import type { InvalidOriginalMapping, OriginalMapping, TraceMap } from "@jridgewell/trace-mapping";
import type { StoredFileRead } from "../artifacts/pieces.js";

/** A parsed source map and its sources' lines, split once (context lines are read per frame). */
export interface ParsedMap {
  map: TraceMap;
  /** The original position of a generated one (trace-mapping's `originalPositionFor` on `map`). */
  originalPositionFor(needle: { line: number; column: number }): OriginalMapping | InvalidOriginalMapping;
  lines(sourceIndex: number): string[] | null;
}

export type MapResult = { ok: true; map: ParsedMap } | { ok: false; reason: string };

/**
 * Parsed source maps by blob checksum (content-addressed: an entry never goes stale), least
 * recently used first out once the raw maps held exceed `maxBytes`. Failures are remembered too,
 * so a broken map is not parsed again for every event.
 */
export class SourceMapCache {
  readonly #entries = new Map<string, { result: MapResult; bytes: number }>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.#entries.size;
  }

  async get(key: string, load: () => Promise<StoredFileRead>): Promise<MapResult> {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.result;
    }
    const loaded = await load();
    const result: MapResult =
      loaded === null
        ? { ok: false, reason: "the source map's file is missing from the artifact store" }
        : "tooLarge" in loaded
          ? {
              ok: false,
              reason: `the source map is ${loaded.tooLarge} bytes, more than the ${loaded.limit} read for symbolication`,
            }
          : await parse(loaded.data);
    const bytes = loaded && "data" in loaded ? loaded.data.byteLength : 0;
    if (bytes <= this.maxBytes) {
      this.#entries.set(key, { result, bytes });
      this.#bytes += bytes;
      for (const [oldest, entry] of this.#entries) {
        if (this.#bytes <= this.maxBytes) break;
        this.#entries.delete(oldest);
        this.#bytes -= entry.bytes;
      }
    }
    return result;
  }
}

/**
 * The source-map tooling, loaded with the first map parsed: an instance that symbolicates nothing
 * never loads it (docs/performance.md, Embedded footprint).
 */
let traceMapping: Promise<typeof TraceMapping> | undefined;

async function parse(data: Uint8Array): Promise<MapResult> {
  const { TraceMap, originalPositionFor } = await (traceMapping ??= import("@jridgewell/trace-mapping"));
  try {
    const map = new TraceMap(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8"));
    const split = new Map<number, string[] | null>();
    return {
      ok: true,
      map: {
        map,
        originalPositionFor: (needle) => originalPositionFor(map, needle),
        lines(sourceIndex) {
          if (!split.has(sourceIndex)) {
            const content = map.sourcesContent?.[sourceIndex];
            split.set(sourceIndex, typeof content === "string" ? content.split(/\r\n|\r|\n/) : null);
          }
          return split.get(sourceIndex) ?? null;
        },
      },
    };
  } catch (error) {
    return { ok: false, reason: `invalid source map: ${(error as Error).message}` };
  }
}
