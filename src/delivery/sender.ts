import http from "node:http";
import https from "node:https";
import pRetry, { AbortError } from "p-retry";
import { isIP } from "node:net";
import { guardedLookup, isBlockedAddress, SsrfError } from "./ssrf.js";
import { repairText } from "../db/storable-text.js";
import { truncateUtf8 } from "./truncate.js";

export interface SendResult {
  /** HTTP status; 0 for a network error or a timeout. */
  status: number;
  /** The first KiB of the response body (whole characters). */
  body: string;
  retryAfter: string | null;
  error: string | null;
  durationMs: number;
}

const RESPONSE_SNIPPET = 1024;
/** Errors that mean the connection broke, not that the receiver answered: worth one quick retry. */
const TRANSIENT = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "EAI_AGAIN"]);

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/**
 * One delivery attempt: POST with a timeout, redirects not followed, the resolved address
 * checked against the SSRF policy at connect time. Broken connections are retried at once a
 * couple of times (p-retry); anything else is the attempt's result.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  try {
    return await pRetry(() => postOnce(url, body, headers, options, started), {
      retries: 2,
      minTimeout: 50,
      maxTimeout: 200,
      shouldRetry: ({ error }) => TRANSIENT.has((error as NodeJS.ErrnoException).code ?? ""),
    });
  } catch (error) {
    const message = repairText(error instanceof SsrfError ? error.message : describe(error));
    return { status: 0, body: "", retryAfter: null, error: message, durationMs: performance.now() - started };
  }
}

function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
  started: number,
): Promise<SendResult> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    // node:http skips `lookup` for literal addresses, so those are checked here.
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (!options.allowPrivateNetworks && isIP(literal) && isBlockedAddress(literal)) {
      throw new AbortError(new SsrfError(`refused to connect to a private address (${literal})`));
    }
    const client = target.protocol === "https:" ? https : http;
    const request = client.request(
      target,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.allowPrivateNetworks) as never,
        timeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_SNIPPET) chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            // A destination may answer anything; the snippet is logged in a text column, which refuses NUL.
            body: repairText(truncateUtf8(Buffer.concat(chunks).toString("utf8"), RESPONSE_SNIPPET)),
            retryAfter: (response.headers["retry-after"] as string | undefined) ?? null,
            error: null,
            durationMs: performance.now() - started,
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    request.on("error", (error) => reject(error instanceof SsrfError ? new AbortError(error) : error));
    request.end(body);
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
