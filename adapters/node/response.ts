import type { ServerResponse } from "node:http";
import { isWireReply, type WireReply } from "../../src/http/wire.js";

/** Faultline's JSON replies: a whole body in memory already, cheaper to send in one piece. */
export const isJson = (response: Response) => /[/+]json\b/.test(response.headers.get("content-type") ?? "");

/** Resolves when the response can take more data again (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Headers the host may have set already, which Faultline adds to rather than replaces. */
const ADDED = new Set(["set-cookie", "link"]);

/** Status and header pairs (a `Headers` yields each `Set-Cookie` on its own); `Set-Cookie` and `Link` join the host's. */
function writeHead(res: ServerResponse, status: number, headers: Iterable<[string, string]>): void {
  res.statusCode = status;
  for (const [name, value] of headers) {
    if (ADDED.has(name.toLowerCase())) res.appendHeader(name, value);
    else res.setHeader(name, value);
  }
}

/**
 * Writes what the pipeline answered: a {@link WireReply} as it is (status, headers, the body's
 * text, one write), a `Response` through {@link sendWebResponse}.
 */
export function sendReply(res: ServerResponse, reply: Response | WireReply): Promise<void> {
  if (!isWireReply(reply)) return sendWebResponse(res, reply);
  writeHead(res, reply.status, reply.headers);
  res.end(reply.body ?? undefined);
  return Promise.resolve();
}

/**
 * Writes a web `Response` to a Node response: status, headers (each `Set-Cookie` and `Link` added
 * to any the host already set), and the body streamed with backpressure. JSON (built in memory
 * from a string anyway) and bodies of one chunk are sent whole, with a Content-Length.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  writeHead(res, response.status, response.headers);
  if (!response.body) return void res.end();
  if (isJson(response)) return void res.end(Buffer.from(await response.arrayBuffer()));
  const reader = response.body.getReader();
  try {
    let pending = await reader.read();
    while (!pending.done) {
      const next = await reader.read();
      if (next.done && !res.headersSent) return void res.end(pending.value);
      if (res.destroyed) return;
      if (!res.write(pending.value)) await drained(res);
      pending = next;
    }
    res.end();
  } finally {
    if (res.destroyed) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
