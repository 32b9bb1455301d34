import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { artifactBundle, uploadBundle } from "../helpers/artifact-upload.js";
import { waitFor } from "../helpers/wait.js";

/** Where a mounted Faultline answers, and credentials for it. */
export interface MountedTarget {
  /** `http://127.0.0.1:port` */
  origin: string;
  /** The mount prefix ("" at the root). */
  prefix: string;
  token: string;
  organization: string;
  project: string;
  /** Digests queued events, for a host that runs no worker; a host with one is polled instead. */
  digest?: () => Promise<void>;
}

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An envelope as @sentry/node sends it: no content type, no item length, gzipped when asked. */
export function envelope(message: string): { eventId: string; body: string } {
  const eventId = randomUUID().replaceAll("-", "");
  const header = JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() });
  const event = JSON.stringify({
    event_id: eventId,
    level: "error",
    platform: "node",
    exception: { values: [{ type: "SuiteError", value: message }] },
  });
  return { eventId, body: `${header}\n{"type":"event"}\n${event}` };
}

/** The DSN the keys endpoint hands out: origin, mount prefix and project id. */
export async function dsnOf(target: MountedTarget): Promise<string> {
  const { origin, prefix, token, organization, project } = target;
  const response = await fetch(`${origin}${prefix}/api/0/projects/${organization}/${project}/keys/`, {
    headers: auth(token),
  });
  expect(response.status).toBe(200);
  const [key] = (await response.json()) as Array<{ dsn: { public: string } }>;
  return key?.dsn.public as string;
}

/**
 * The request suite every mount must pass: DSN under the prefix, a gzipped envelope, the issue
 * list with prefixed Link URLs, a JSON update, HEAD / 404 / 405, and the OpenAPI servers entry.
 */
export function requestSuite(target: () => MountedTarget, options: { uploads?: boolean } = {}): void {
  it("hands out a DSN carrying origin and prefix", async () => {
    const t = target();
    expect(await dsnOf(t)).toMatch(new RegExp(`^${t.origin.replace("//", "//[0-9a-f]{32}@")}${t.prefix}/\\d+$`));
  });

  it("ingests a gzipped envelope, lists it with prefixed Link URLs, and updates it with a JSON body", async () => {
    const t = target();
    const dsn = new URL(await dsnOf(t));
    const message = `suite ${t.prefix || "root"} ${randomUUID()}`;
    const { eventId, body } = envelope(message);
    const posted = await fetch(
      `${t.origin}${dsn.pathname.replace(/\/(\d+)$/, "/api/$1/envelope/")}?sentry_key=${dsn.username}&sentry_version=7`,
      {
        method: "POST",
        headers: { "Content-Encoding": "gzip" },
        body: gzipSync(body),
      },
    );
    expect([posted.status, await posted.json()]).toEqual([200, { id: eventId }]);

    // Acknowledged is not yet grouped (queued ingest): list until the issue shows, as a client would.
    await t.digest?.();
    const { list, issue } = await waitFor(
      async () => {
        const response = await fetch(
          `${t.origin}${t.prefix}/api/0/organizations/${t.organization}/issues/?query=&limit=100`,
          { headers: auth(t.token) },
        );
        expect(response.status).toBe(200);
        const found = ((await response.json()) as Array<{ id: string; title: string }>).find(
          (candidate) => candidate.title === `SuiteError: ${message}`,
        );
        return found && { list: response, issue: found };
      },
      10_000,
      "the ingested issue in the list",
    );
    const links = [...(list.headers.get("link") ?? "").matchAll(/<([^>]+)>/g)].map((match) => match[1]);
    expect(links).toHaveLength(2);
    for (const link of links)
      expect(link).toMatch(new RegExp(`^${t.origin}${t.prefix}/api/0/organizations/${t.organization}/issues/\\?`));

    const updated = await fetch(`${t.origin}${t.prefix}/api/0/organizations/${t.organization}/issues/${issue?.id}/`, {
      method: "PUT",
      headers: { ...auth(t.token), "Content-Type": "application/json" },
      body: JSON.stringify({ status: "resolved" }),
    });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { status: string }).status).toBe("resolved");
  });

  it("answers HEAD without a body, 404 in Sentry's shape and 405 with Allow", async () => {
    const t = target();
    const head = await fetch(`${t.origin}${t.prefix}/api/0/organizations/${t.organization}/`, {
      method: "HEAD",
      headers: auth(t.token),
    });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    const missing = await fetch(`${t.origin}${t.prefix}/api/0/no-such-route/`, { headers: auth(t.token) });
    expect([missing.status, await missing.json()]).toEqual([404, { detail: "The requested resource does not exist" }]);
    const wrong = await fetch(`${t.origin}${t.prefix}/api/0/organizations/${t.organization}/`, {
      method: "PATCH",
      headers: auth(t.token),
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("GET");
  });

  // Once per way a body reaches Faultline (streamed, or bytes a host's parser kept): mounts that
  // differ only in their path share the upload path too.
  it.skipIf(options.uploads === false)(
    "assembles an artifact bundle of ~100 KB whose entry inflates to 100 MiB of zeros, and answers afterwards (#27: it ended the host)",
    { timeout: 120_000 },
    async () => {
      const t = target();
      const bomb = artifactBundle({ "zeros.js": { data: new Uint8Array(100 * 1024 * 1024) } });
      expect(await uploadBundle(`${t.origin}${t.prefix}`, t.token, bomb, t.organization, t.project)).toEqual({
        state: "ok",
        detail: null,
        missingChunks: [],
      });
      expect(
        (await fetch(`${t.origin}${t.prefix}/api/0/organizations/${t.organization}/`, { headers: auth(t.token) }))
          .status,
      ).toBe(200);
    },
  );

  it("serves the OpenAPI document with its own origin and prefix as the server", async () => {
    const t = target();
    const response = await fetch(`${t.origin}${t.prefix}/api/0/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: Array<{ variables: Record<string, { default: string }> }> };
    expect(document.servers[0]?.variables).toEqual({ origin: { default: t.origin }, basePath: { default: t.prefix } });
  });
}
