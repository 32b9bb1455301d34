import type { EventPayloadProcessor } from "../../event-store/index.js";
import { readStoredFile } from "../artifacts/pieces.js";
import type { ArtifactStore } from "../artifacts/store.js";
import { type AbsentMaps, absentMapsKey } from "./absent-maps.js";
import type { SourceMapCache } from "./cache.js";
import { locateMaps, type MapLocation } from "./lookup.js";
import { enclosingFunction, type Frame, mapFrame } from "./map-frame.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : isObject(value) && Array.isArray(value.values) ? value.values : [];
/** Where a frame's code was loaded from: browser SDKs send `abs_path`, Node's an absolute `filename`. */
const pathOf = (frame: Json): string | null =>
  typeof frame.abs_path === "string" && frame.abs_path
    ? frame.abs_path
    : typeof frame.filename === "string"
      ? frame.filename
      : null;
/** Frames worth a lookup: a JavaScript file with a position (not `node:internal/…`, not `<anonymous>`). */
const scriptPath = (frame: Json): string | null => {
  const path = pathOf(frame);
  return path &&
    /\.(?:m|c)?js(?:[?#].*)?$/s.test(path) &&
    typeof frame.lineno === "number" &&
    typeof frame.colno === "number"
    ? path
    : null;
};

/**
 * Largest source map read for symbolication: one held parsed in memory per event that needs it,
 * so a map past this is reported (`js_invalid_sourcemap`) rather than loaded.
 */
const MAX_MAP_BYTES = 64 * 1024 * 1024;

/**
 * Source-map symbolication of JavaScript stack traces, run on each event before it is grouped
 * (so two builds of one bug are one issue). Mapped frames replace the stack; the frames as sent
 * stay in `raw_stacktrace`. A missing or broken map leaves its frames alone and adds an entry to
 * the event's `errors` saying why; nothing here fails an event.
 */
export class SourceMapProcessor implements EventPayloadProcessor {
  readonly id = "releases.sourcemaps";

  constructor(
    private readonly store: ArtifactStore,
    private readonly cache: SourceMapCache,
    private readonly absent: AbsentMaps,
  ) {}

  async process({ db, project, payload }: Parameters<EventPayloadProcessor["process"]>[0]): Promise<Json | null> {
    const exceptionList = list(payload.exception);
    const stacks = exceptionList
      .filter(isObject)
      .filter((value) => isObject(value.stacktrace) && !value.raw_stacktrace);
    const absPaths = [
      ...new Set(
        stacks.flatMap((value) =>
          list((value.stacktrace as Json).frames)
            .filter(isObject)
            .flatMap((frame) => scriptPath(frame) ?? []),
        ),
      ),
    ];
    if (absPaths.length === 0) return null;
    const images = debugImages(payload);
    const release = typeof payload.release === "string" ? payload.release : null;
    if (images.size === 0 && !release) return null;
    const dist = typeof payload.dist === "string" ? payload.dist : null;
    const absentKey = absentMapsKey(
      project.id,
      release,
      dist,
      absPaths.flatMap((path) => images.get(path) ?? []),
    );
    const locations = await this.absent.lookup(absentKey, () =>
      locateMaps(db, project.organizationId, project.id, { absPaths, images, release, dist }),
    );
    if (locations === null || locations.size === 0) return null;

    const errors: Json[] = [];
    const reported = new Set<string>();
    const report = (error: Json) => {
      const key = JSON.stringify(error);
      if (!reported.has(key)) errors.push(error);
      reported.add(key);
    };
    let changed = false;
    const values = [];
    for (const value of exceptionList) {
      if (!stacks.includes(value as Json)) {
        values.push(value);
        continue;
      }
      const exception = value as Json;
      const frames = list((exception.stacktrace as Json).frames);
      const mapped = await this.#mapFrames(project.organizationId, frames, locations, report, db);
      if (!mapped) {
        values.push(exception);
        continue;
      }
      changed = true;
      values.push({
        ...exception,
        stacktrace: { ...(exception.stacktrace as Json), frames: mapped },
        raw_stacktrace: exception.stacktrace,
      });
    }
    if (!changed && errors.length === 0) return null;
    const previous = Array.isArray(payload.errors) ? payload.errors : [];
    const exception = Array.isArray(payload.exception) ? values : { ...(payload.exception as Json), values };
    return { ...payload, exception, ...(errors.length > 0 && { errors: [...previous, ...errors] }) };
  }

  /** The frames mapped (oldest first, as sent), or null when none could be. */
  async #mapFrames(
    organizationId: number,
    frames: unknown[],
    locations: Map<string, MapLocation>,
    report: (error: Json) => void,
    db: Parameters<EventPayloadProcessor["process"]>[0]["db"],
  ): Promise<Frame[] | null> {
    const out: Frame[] = [];
    const callees: Array<string | null> = [];
    const enclosing: Array<string | null> = [];
    let any = false;
    for (const raw of frames) {
      const frame = isObject(raw) ? raw : {};
      const path = scriptPath(frame);
      const location = path === null ? undefined : locations.get(path);
      if (!location) {
        out.push(frame);
        callees.push(null);
        enclosing.push(null);
        continue;
      }
      if (!location.found) {
        // Library frames (`in_app: false`, node_modules) are often not uploaded: not worth an error.
        if (frame.in_app !== false) report({ type: "js_no_source", url: location.url, reason: location.reason });
        out.push(frame);
        callees.push(null);
        enclosing.push(null);
        continue;
      }
      const parsed = await this.cache.get(`${organizationId}:${location.checksum}`, () =>
        readStoredFile(db, this.store, organizationId, location.checksum, MAX_MAP_BYTES),
      );
      if (!parsed.ok) {
        report({ type: "js_invalid_sourcemap", url: location.url, reason: parsed.reason });
        out.push(frame);
        callees.push(null);
        enclosing.push(null);
        continue;
      }
      let result: ReturnType<typeof mapFrame>;
      try {
        result = mapFrame(frame, parsed.map, { sourcemap: location.url, resolvedWith: location.resolvedWith });
      } catch (error) {
        // Mappings are decoded lazily: a corrupt `mappings` string shows up here.
        report({
          type: "js_invalid_sourcemap",
          url: location.url,
          reason: `invalid source map: ${(error as Error).message}`,
        });
        out.push(frame);
        callees.push(null);
        enclosing.push(null);
        continue;
      }
      if (!result) {
        report({ type: "js_invalid_sourcemap_location", url: location.url, row: frame.lineno, column: frame.colno });
        out.push(frame);
        callees.push(null);
        enclosing.push(null);
        continue;
      }
      any = true;
      out.push(result.frame);
      callees.push(result.calleeName);
      const sourceIndex = parsed.map.map.resolvedSources.indexOf(result.frame.abs_path as string);
      enclosing.push(
        enclosingFunction(sourceIndex >= 0 ? parsed.map.lines(sourceIndex) : null, result.frame.lineno as number),
      );
    }
    if (!any) return null;
    // A frame's original function name: the name its caller's call site refers to (the frame
    // before it, oldest first), else the declaration enclosing its line in the original source.
    return out.map((frame, index) => {
      if (!isObject(frame.data) || frame.data.symbolicated !== true) return frame;
      const name = (index > 0 ? callees[index - 1] : null) ?? enclosing[index] ?? null;
      return name ? { ...frame, function: name } : frame;
    });
  }
}

/** `debug_meta.images` of type `sourcemap`: each file's URL and the debug ID injected into it. */
function debugImages(payload: Json): Map<string, string> {
  const images = new Map<string, string>();
  const meta = payload.debug_meta;
  if (!isObject(meta) || !Array.isArray(meta.images)) return images;
  for (const image of meta.images) {
    if (
      isObject(image) &&
      image.type === "sourcemap" &&
      typeof image.code_file === "string" &&
      typeof image.debug_id === "string"
    ) {
      images.set(image.code_file, image.debug_id.toLowerCase());
    }
  }
  return images;
}
