import { randomUUID } from "node:crypto";

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echo a well-formed incoming `X-Request-Id` (so a host's tracing lines up), else mint one. */
export function requestIdFor(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID().replaceAll("-", "");
}
