import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { listen } from "./server.js";

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  path: string;
}

export type Reply = number | { status: number; delayMs?: number; headers?: Record<string, string> };

/**
 * A real webhook receiver on 127.0.0.1. Answers each request with the next scripted reply (then
 * `fallback`, default 200) and records what it received, raw body included. While `holding`,
 * requests are recorded but left unanswered until `release()`: a send kept in flight.
 */
export async function startReceiver(script: Reply[] = [], options: { fallback?: number; holding?: boolean } = {}) {
  const received: ReceivedRequest[] = [];
  const replies = [...script];
  const held: ServerResponse[] = [];
  let holding = options.holding ?? false;
  const waiters: Array<() => void> = [];
  const answer = (res: ServerResponse) => {
    const next = replies.shift() ?? options.fallback ?? 200;
    const reply = typeof next === "number" ? { status: next } : next;
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(reply.status, reply.headers);
      res.end("ok");
    }, reply.delayMs ?? 0);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body, json: safeJson(body), path: req.url ?? "/" });
      for (const wake of waiters.splice(0)) wake();
      if (holding) held.push(res);
      else answer(res);
    });
  });
  const running = await listen(server);
  return {
    url: running.url,
    received,
    /** Answers every held request and stops holding. */
    release(): void {
      holding = false;
      for (const res of held.splice(0)) answer(res);
    },
    /** Resolves once `predicate` holds for what was received (or rejects after `timeoutMs`). */
    async until(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 25_000): Promise<ReceivedRequest[]> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: condition not met after ${timeoutMs} ms (${received.length} requests)`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: running.close,
  };
}

function safeJson(body: string): Record<string, unknown> {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return {};
  }
}
