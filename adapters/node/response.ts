import type { ServerResponse } from "node:http";
import { jsonTextOf } from "../../src/http/responses.js";

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

/**
 * Writes a web `Response` to a Node response: status, headers (each `Set-Cookie` and `Link` added
 * to any the host already set), and the body streamed with backpressure. JSON (built in memory
 * from a string anyway) and bodies of one chunk are sent whole, with a Content-Length.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const cookie of response.headers.getSetCookie()) res.appendHeader("Set-Cookie", cookie);
  response.headers.forEach((value, name) => {
    if (name === "link") res.appendHeader("Link", value);
    else if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (!response.body) return void res.end();
  const text = jsonTextOf(response);
  if (text !== undefined) return void res.end(text);
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
