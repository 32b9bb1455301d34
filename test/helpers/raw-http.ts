import { connect } from "node:net";

/** What a server answered to a raw request, or how the connection ended without an answer. */
export interface RawAnswer {
  /** The status code, or null when nothing was answered (closed, reset or timed out). */
  status: number | null;
  /** Lower-cased header names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** The body's text (de-chunked). */
  body: string;
  /** "answered", or what happened instead. */
  outcome: "answered" | "closed" | "reset" | "timeout";
  /** The body arrived whole: its Content-Length, or the last chunk of a chunked body (else the reply was cut). */
  complete: boolean;
}

/** Joins the chunks of a `Transfer-Encoding: chunked` body (no trailers expected). */
function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(raw: Buffer, outcome: RawAnswer["outcome"]): RawAnswer {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd < 0)
    return {
      status: null,
      headers: {},
      body: "",
      outcome: outcome === "answered" ? "closed" : outcome,
      complete: false,
    };
  const [statusLine = "", ...lines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.subarray(headEnd + 4);
  const chunked = headers["transfer-encoding"]?.toLowerCase() === "chunked";
  const body = chunked ? unchunk(rest) : rest;
  const complete = chunked
    ? rest.toString("latin1").endsWith("0\r\n\r\n")
    : rest.length === Number(headers["content-length"] ?? 0);
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: body.toString("utf8"),
    outcome: "answered",
    complete,
  };
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the blank line that ends them)
 * over a plain TCP socket, byte for byte — `fetch` refuses a malformed `Host` or an asterisk-form
 * target — with `Connection: close`, and reads the answer until the server closes.
 */
export function rawRequest(origin: string, head: string, timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname);
    let outcome: RawAnswer["outcome"] = "answered";
    const timer = setTimeout(() => {
      outcome = "timeout";
      socket.destroy();
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => (outcome = outcome === "timeout" ? outcome : "reset"));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks), outcome));
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n`, "latin1");
  });
}
