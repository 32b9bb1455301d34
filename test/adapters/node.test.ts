import { createServer, request as httpRequest } from "node:http";
import { describe, expect, it, onTestFinished } from "vitest";
import { toNodeHandler, type HasHandler, toWebRequest } from "../../adapters/node/index.js";
import { readBodyBytes } from "../../src/http/body.js";
import { ApiError } from "../../src/http/errors.js";
import { listen, type RunningServer } from "../helpers/server.js";

/*
 * Each test owns its state (its handler, its server, its count of Requests): nothing set by one
 * test can change what another sees, in whatever order they run (--sequence.shuffle).
 */

/**
 * Counts the real `Request`s constructed until the test ends. The adapter builds one with the
 * global `Request`, so that is what is replaced, for this test only.
 */
function countRequestsBuilt(): { readonly built: number } {
  const OriginalRequest = globalThis.Request;
  const counter = { built: 0 };
  globalThis.Request = class CountingRequest extends OriginalRequest {
    constructor(...args: ConstructorParameters<typeof Request>) {
      super(...args);
      counter.built += 1;
    }
  };
  onTestFinished(() => {
    globalThis.Request = OriginalRequest;
  });
  return counter;
}

/** The adapter mounted at /fl in front of `handler`, on a server of the test's own, closed when it ends. */
async function serveAdapter(handler: HasHandler["handler"]): Promise<RunningServer> {
  const server = await listen(createServer(toNodeHandler({ handler }, { basePath: "/fl" })));
  onTestFinished(() => server.close());
  return server;
}

describe("faultline/node", () => {
  it("a GET builds no Request and copies no body: url, method and headers are read lazily", async () => {
    const requests = countRequestsBuilt();
    let seen: Request | undefined;
    const server = await serveAdapter(async (request) => {
      seen = request;
      void request.headers.get("authorization"); // what the pipeline reads on every request
      return new Response("ok");
    });
    const response = await fetch(`${server.url}/fl/api/0/x/?a=1`, {
      headers: { Authorization: "Bearer t", "X-Twice": "a" },
    });
    expect(await response.text()).toBe("ok");
    expect(requests.built).toBe(0);
    expect(seen?.method).toBe("GET");
    expect(seen?.url).toBe(`${server.url}/fl/api/0/x/?a=1`);
    expect(seen?.headers.get("x-twice")).toBe("a");
    expect(seen?.body).toBeNull();
    expect(seen).toBeInstanceOf(Request);
    expect(requests.built).toBe(0);
  });

  it("a POST streams its body into one real Request when the body is read (and clone works)", async () => {
    const requests = countRequestsBuilt();
    let text = "";
    const server = await serveAdapter(async (request) => {
      text = await request.clone().text();
      return new Response("ok");
    });
    await fetch(`${server.url}/fl/upload`, { method: "POST", body: "x".repeat(100_000) });
    expect(text).toHaveLength(100_000);
    expect(requests.built).toBeGreaterThanOrEqual(1);
  });

  it("keeps a path that starts with // a path, on the request's own host", () => {
    const fake = {
      method: "GET",
      url: "//evil.test/x",
      headers: { host: "app.test" },
      rawHeaders: ["Host", "app.test"],
      socket: {},
    };
    expect(toWebRequest(fake as never).url).toBe("http://app.test//evil.test/x");
  });

  it("sends a one-chunk body with Content-Length, a streamed one chunked, and every Set-Cookie", async () => {
    const withCookies = () => {
      const headers = new Headers();
      headers.append("Set-Cookie", "a=1");
      headers.append("Set-Cookie", "b=2");
      return new Response('{"ok":true}', { headers });
    };
    const streamedInTwoChunks = () =>
      new Response(
        new ReadableStream({
          start: (c) => (c.enqueue(new Uint8Array([1])), c.enqueue(new Uint8Array([2])), c.close()),
        }),
      );
    const server = await serveAdapter(async (request) =>
      new URL(request.url).pathname === "/fl/small" ? withCookies() : streamedInTwoChunks(),
    );
    const small = await rawGet(`${server.url}/fl/small`);
    expect(small.headers["content-length"]).toBe("11");
    expect(small.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    const streamed = await rawGet(`${server.url}/fl/streamed`);
    expect([streamed.headers["transfer-encoding"], streamed.body.length]).toEqual(["chunked", 2]);
  });

  it("reads a body straight from the request (no Request built) and cuts a chunked one off at the limit", async () => {
    const requests = countRequestsBuilt();
    const reader: HasHandler = {
      handler: async (request) => {
        try {
          return new Response(`read ${(await readBodyBytes(request, 1024)).byteLength}`);
        } catch (error) {
          if (error instanceof ApiError) return new Response(error.detail, { status: error.status });
          throw error;
        }
      },
    };
    const target = await listen(createServer(toNodeHandler(reader)));
    const send = (chunks: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${target.url}/upload`,
          { method: "POST", headers: { "Transfer-Encoding": "chunked" } },
          (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => (body += chunk.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    try {
      expect(await send(["a".repeat(600), "b".repeat(400)])).toEqual({ status: 200, body: "read 1000" });
      expect(requests.built).toBe(0);
      expect(await send(["a".repeat(600), "b".repeat(600), "c".repeat(600)])).toEqual({
        status: 413,
        body: "Request body too large (limit 1 KiB)",
      });
      // The rest of a refused body is discarded, not left to corrupt the next request.
      expect(await send(["ok"])).toEqual({ status: 200, body: "read 2" });
    } finally {
      await target.close();
    }
  });

  it("a body the host read first is reported as used and refused with the fix, never awaited forever", async () => {
    const requests = countRequestsBuilt();
    const reader: HasHandler = {
      handler: async (request) => {
        const used = request.bodyUsed;
        try {
          return new Response(`read ${(await readBodyBytes(request, 1024)).byteLength}`);
        } catch (error) {
          if (error instanceof ApiError) return new Response(`${used} ${error.status} ${error.detail}`);
          throw error;
        }
      },
    };
    const listener = toNodeHandler(reader);
    const target = await listen(
      createServer((req, res) => {
        // A host that reads every body itself, then hands the request on.
        req.resume();
        req.once("end", () => void listener(req, res));
      }),
    );
    try {
      const response = await fetch(`${target.url}/upload`, { method: "POST", body: "{}" });
      expect(await response.text()).toMatch(
        /^true 500 .*consumed before Faultline.*Pass Faultline the request before anything reads its body/,
      );
      expect(requests.built).toBe(0);
    } finally {
      await target.close();
    }
  });
});

function rawGet(url: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}
