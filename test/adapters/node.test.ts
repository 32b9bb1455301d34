import { createServer, request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler, type HasHandler, toWebRequest } from "../../adapters/node/index.js";
import { readBodyBytes } from "../../src/http/body.js";
import { ApiError } from "../../src/http/errors.js";
import { listen, type RunningServer } from "../helpers/server.js";

/** Counts the real `Request`s constructed while a test runs. */
const OriginalRequest = globalThis.Request;
let constructed = 0;
class CountingRequest extends OriginalRequest {
  constructor(...args: ConstructorParameters<typeof Request>) {
    super(...args);
    constructed += 1;
  }
}

let seen: Request | undefined;
let reply: () => Response = () => new Response("ok");
const recorder: HasHandler = {
  handler: async (request) => {
    seen = request;
    void request.headers.get("authorization"); // what the pipeline reads on every request
    return reply();
  },
};

let server: RunningServer;
beforeAll(async () => {
  globalThis.Request = CountingRequest as typeof Request;
  server = await listen(createServer(toNodeHandler(recorder, { basePath: "/fl" })));
});
afterAll(async () => {
  globalThis.Request = OriginalRequest;
  await server?.close();
});
afterEach(() => {
  constructed = 0;
  reply = () => new Response("ok");
});

describe("faultline/node", () => {
  it("a GET builds no Request and copies no body: url, method and headers are read lazily", async () => {
    const response = await fetch(`${server.url}/fl/api/0/x/?a=1`, { headers: { Authorization: "Bearer t", "X-Twice": "a" } });
    expect(await response.text()).toBe("ok");
    expect(constructed).toBe(0);
    expect(seen?.method).toBe("GET");
    expect(seen?.url).toBe(`${server.url}/fl/api/0/x/?a=1`);
    expect(seen?.headers.get("x-twice")).toBe("a");
    expect(seen?.body).toBeNull();
    expect(seen).toBeInstanceOf(Request);
    expect(constructed).toBe(0);
  });

  it("a POST streams its body into one real Request when the body is read (and clone works)", async () => {
    let text = "";
    reply = () => new Response("ok");
    recorder.handler = async (request) => {
      text = await request.clone().text();
      return reply();
    };
    await fetch(`${server.url}/fl/upload`, { method: "POST", body: "x".repeat(100_000) });
    expect(text).toHaveLength(100_000);
    expect(constructed).toBeGreaterThanOrEqual(1);
  });

  it("keeps a path that starts with // a path, on the request's own host", () => {
    const fake = { method: "GET", url: "//evil.test/x", headers: { host: "app.test" }, rawHeaders: ["Host", "app.test"], socket: {} };
    expect(toWebRequest(fake as never).url).toBe("http://app.test//evil.test/x");
  });

  it("sends a one-chunk body with Content-Length, a streamed one chunked, and every Set-Cookie", async () => {
    recorder.handler = async () => reply();
    reply = () => {
      const headers = new Headers();
      headers.append("Set-Cookie", "a=1");
      headers.append("Set-Cookie", "b=2");
      return new Response('{"ok":true}', { headers });
    };
    const small = await rawGet(`${server.url}/fl/small`);
    expect(small.headers["content-length"]).toBe("11");
    expect(small.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    reply = () => new Response(new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array([1])), c.enqueue(new Uint8Array([2])), c.close()) }));
    const streamed = await rawGet(`${server.url}/fl/streamed`);
    expect([streamed.headers["transfer-encoding"], streamed.body.length]).toEqual(["chunked", 2]);
  });
  it("reads a body straight from the request (no Request built) and cuts a chunked one off at the limit", async () => {
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
        const req = httpRequest(`${target.url}/upload`, { method: "POST", headers: { "Transfer-Encoding": "chunked" } }, (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    try {
      expect(await send(["a".repeat(600), "b".repeat(400)])).toEqual({ status: 200, body: "read 1000" });
      expect(constructed).toBe(0);
      expect(await send(["a".repeat(600), "b".repeat(600), "c".repeat(600)])).toEqual({ status: 413, body: "Request body too large (limit 1 KiB)" });
      // The rest of a refused body is discarded, not left to corrupt the next request.
      expect(await send(["ok"])).toEqual({ status: 200, body: "read 2" });
    } finally {
      await target.close();
    }
  });

  it("a body the host read first is reported as used and refused with the fix, never awaited forever", async () => {
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
      expect(await response.text()).toMatch(/^true 500 .*consumed before Faultline.*Pass Faultline the request before anything reads its body/);
      expect(constructed).toBe(0);
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
