import { createHash } from "node:crypto";
import { zipSync } from "fflate";

const sha1 = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");

/**
 * An artifact bundle as sentry-cli builds one: `manifest.json` naming each file's URL and type,
 * the files under `files/_/_/`, deflated.
 */
export function artifactBundle(
  files: Record<string, { data: Uint8Array; type?: string; headers?: Record<string, string> }>,
): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  const manifest: Record<string, { url: string; type: string; headers: Record<string, string> }> = {};
  for (const [name, file] of Object.entries(files)) {
    entries[`files/_/_/${name}`] = file.data;
    manifest[`files/_/_/${name}`] = {
      url: `~/${name}`,
      type: file.type ?? (name.endsWith(".map") ? "source_map" : "minified_source"),
      headers: file.headers ?? {},
    };
  }
  return zipSync(
    {
      "manifest.json": new TextEncoder().encode(JSON.stringify({ org: "acme", release: null, files: manifest })),
      ...entries,
    },
    { level: 6 },
  );
}

type AssembleReply = { state: string; detail: string | null; missingChunks: string[] };

/** Cuts `bundle` into the host's `chunkSize` chunks and POSTs each as a multipart `file` part named by its SHA-1. */
export async function uploadChunks(
  base: string,
  token: string,
  bundle: Uint8Array,
  organization = "acme",
): Promise<{ checksum: string; chunks: string[] }> {
  const headers = { Authorization: `Bearer ${token}` };
  const options = (await (
    await fetch(`${base}/api/0/organizations/${organization}/chunk-upload/`, { headers })
  ).json()) as { url: string; chunkSize: number };
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bundle.byteLength; at += options.chunkSize)
    chunks.push(bundle.subarray(at, at + options.chunkSize));
  for (const chunk of chunks) {
    const form = new FormData();
    form.append("file", new Blob([chunk as Uint8Array<ArrayBuffer>]), sha1(chunk));
    const posted = await fetch(options.url, { method: "POST", headers, body: form });
    if (posted.status !== 200) throw new Error(`chunk upload answered ${posted.status}: ${await posted.text()}`);
  }
  return { checksum: sha1(bundle), chunks: chunks.map(sha1) };
}

/** One `artifactbundle/assemble` call. */
export async function assemble(
  base: string,
  token: string,
  bundle: { checksum: string; chunks: string[] },
  organization = "acme",
  project = "web",
): Promise<AssembleReply> {
  const answer = await fetch(`${base}/api/0/organizations/${organization}/artifactbundle/assemble/`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ ...bundle, projects: [project] }),
  });
  const reply = (await answer.json()) as AssembleReply;
  if (answer.status !== 200) throw new Error(`assemble answered ${answer.status}: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * sentry-cli's upload protocol, spoken directly: the chunks, then `artifactbundle/assemble` until
 * it leaves `created`/`assembling`.
 */
export async function uploadBundle(
  base: string,
  token: string,
  bundle: Uint8Array,
  organization = "acme",
  project = "web",
): Promise<AssembleReply> {
  const uploaded = await uploadChunks(base, token, bundle, organization);
  for (;;) {
    const reply = await assemble(base, token, uploaded, organization, project);
    if (reply.state !== "created" && reply.state !== "assembling") return reply;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
