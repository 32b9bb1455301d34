import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler, type HasHandler } from "../../adapters/node/index.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a request listener on 127.0.0.1 on a free port. */
export async function listen(server: Server): Promise<RunningServer> {
  // fetch() reuses idle connections for about as long as the server's Keep-Alive hint (5 s); on a
  // loaded machine the server's timer can close one just as a request goes out on it ("fetch
  // failed"). Tests keep connections far longer than any test waits between requests.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A real node:http server in front of a Faultline instance (optionally under a prefix). */
export function serveFaultline(faultline: HasHandler, basePath = ""): Promise<RunningServer> {
  const handler = toNodeHandler(faultline, { basePath });
  return listen(
    createServer((req, res) => {
      if (basePath && !req.url?.startsWith(basePath)) {
        res.statusCode = 404;
        res.end("host 404");
        return;
      }
      void handler(req, res);
    }),
  );
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Calls a running server over HTTP, as `token` when given: a string body goes out verbatim
 * (malformed JSON), anything else as JSON. The reply's status, JSON body (null when empty) and
 * headers. `baseUrl` is read at each call, so the server may be started after this is made.
 */
export function httpCaller(baseUrl: () => string) {
  return async (method: string, path: string, token?: string, body?: unknown) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
}

/** {@link httpCaller} answering only `{status, body}`, for tests that compare whole answers. */
export function httpAnswerCaller(baseUrl: () => string) {
  const call = httpCaller(baseUrl);
  return async (...args: Parameters<typeof call>) => {
    const { status, body } = await call(...args);
    return { status, body };
  };
}

/**
 * Calls an instance's handler in-process, as `token`: a string body goes out verbatim (malformed
 * JSON), anything else as JSON. The reply's JSON body, null when empty.
 */
export function inProcess(faultline: HasHandler, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await faultline.handler(
      new Request(`http://x${path}`, {
        method,
        headers: { ...bearer(token), "content-type": "application/json" },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}
