// Seeds the demo's source-mapped crash: uploads assets/checkout.min.js and its map as an artifact
// bundle (the same chunk-upload + assemble calls `sentry-cli sourcemaps upload` makes, through
// Faultline's own handler), runs the minified script until it throws, and sends that error with
// its debug ID, so the issue `npm start` shows has frames mapped back to assets/checkout.js.
// Skipped when the bundle is already there: a warm start costs one query.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";

const SCRIPT = new URL("./assets/checkout.min.js", import.meta.url);
const MAP = new URL("./assets/checkout.min.js.map", import.meta.url);

const sha1 = (data) => createHash("sha1").update(data).digest("hex");

/** The debug ID `sentry-cli sourcemaps inject` wrote into the minified script. */
export function demoDebugId() {
  const id = /\/\/# debugId=([0-9a-f-]{36})/.exec(readFileSync(SCRIPT, "utf8"))?.[1];
  if (!id) throw new Error(`${fileURLToPath(SCRIPT)} has no debug ID (run sentry-cli sourcemaps inject on it)`);
  return id;
}

/** The event's ID: the debug ID's hex digits, so a later start (and the smoke test) can find it. */
export const demoEventId = () => demoDebugId().replaceAll("-", "");

/**
 * Uploads the bundle and sends the crash unless the bundle is already stored; true when it did.
 * `call(method, path, body)` goes through Faultline's handler with the demo's API token.
 */
export async function seedMappedCrash(faultline, { organization, project, call, envelopeUrl }) {
  const debugId = demoDebugId();
  const files = await faultline.api.releases.artifacts(organization);
  if (files.some((file) => file.debugId === debugId && file.type === "source_map")) return false;

  const bundle = zipSync({
    "manifest.json": new TextEncoder().encode(JSON.stringify(manifest(organization, debugId))),
    "files/_/_/checkout.min.js": readFileSync(SCRIPT),
    "files/_/_/checkout.min.js.map": readFileSync(MAP),
  });
  const checksum = sha1(bundle);
  const form = new FormData();
  form.append("file", new Blob([bundle]), checksum);
  await call("POST", `/api/0/organizations/${organization}/chunk-upload/`, form);
  const assembled = await call("POST", `/api/0/organizations/${organization}/artifactbundle/assemble/`, { checksum, chunks: [checksum], projects: [project] });
  if (assembled.state !== "ok") throw new Error(`the demo's artifact bundle was not assembled: ${JSON.stringify(assembled)}`);

  // The minified script's own stack, as an SDK would report it (oldest frame first).
  const { checkout } = await import(SCRIPT.href);
  let error;
  try {
    checkout();
  } catch (thrown) {
    error = thrown;
  }
  const frames = stackFrames(error.stack).reverse();
  const eventId = debugId.replaceAll("-", "");
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: "javascript",
    level: "error",
    exception: { values: [{ type: error.name, value: error.message, stacktrace: { frames } }] },
    debug_meta: { images: [{ type: "sourcemap", code_file: fileURLToPath(SCRIPT), debug_id: debugId }] },
  };
  const envelope = [JSON.stringify({ event_id: eventId }), JSON.stringify({ type: "event" }), JSON.stringify(event)].join("\n");
  const response = await faultline.handler(new Request(envelopeUrl, { method: "POST", body: envelope }));
  if (!response.ok) throw new Error(`the demo's crash event was refused: ${response.status} ${await response.text()}`);
  return true;
}

/** sentry-cli's bundle manifest: each file's URL, type and headers (debug ID, map reference). */
function manifest(organization, debugId) {
  return {
    org: organization,
    files: {
      "files/_/_/checkout.min.js": { url: "~/checkout.min.js", type: "minified_source", headers: { "debug-id": debugId, sourcemap: "checkout.min.js.map" } },
      "files/_/_/checkout.min.js.map": { url: "~/checkout.min.js.map", type: "source_map", headers: { "debug-id": debugId } },
    },
  };
}

/** V8 stack lines (`at fn (file:///…:2:37)`) as Sentry frames; node:internal frames are not in-app. */
function stackFrames(stack) {
  const frames = [];
  for (const line of String(stack).split("\n").slice(1)) {
    const match = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!match) continue;
    const [, fn, location, lineno, colno] = match;
    const filename = location.startsWith("file://") ? fileURLToPath(location) : location;
    frames.push({ function: fn ?? "<anonymous>", filename, abs_path: filename, lineno: Number(lineno), colno: Number(colno), in_app: !filename.startsWith("node:") });
  }
  return frames;
}
