import { ApiError } from "../../http/errors.js";
import type { ErrorRenderer } from "../../plugin/plugin.js";
import { ERROR_SCHEMA, SCIM_MEDIA_TYPE } from "./constants.js";

/** RFC 7644 §3.12 `scimType` values. */
export type ScimType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue";

/** An error that renders as a SCIM Error with this `scimType` (the renderer reads `extra.scimType`). */
export function scimError(
  status: number,
  scimType: ScimType | null,
  detail: string,
  headers: Record<string, string> = {},
): ApiError {
  return new ApiError(status, detail, scimType ? { scimType } : {}, headers);
}

export const invalidSyntax = (detail: string) => scimError(400, "invalidSyntax", detail);
export const invalidValue = (detail: string) => scimError(400, "invalidValue", detail);
export const invalidFilter = (detail: string) => scimError(400, "invalidFilter", detail);
export const invalidPath = (detail: string) => scimError(400, "invalidPath", detail);
export const mutability = (detail: string) => scimError(400, "mutability", detail);
export const noTarget = (detail: string) => scimError(400, "noTarget", detail);
export const uniqueness = (detail: string) => scimError(409, "uniqueness", detail);
export const resourceNotFound = (kind: "User" | "Group", id: string) =>
  scimError(404, null, `${kind} ${JSON.stringify(id)} not found`);

const SCIM_PATH = /^\/api\/0\/organizations\/[^/]+\/scim\/v2(?:\/|$)/;

/** Errors raised outside SCIM code (body reading, JSON parsing, validation) get the scimType RFC 7644 gives them. */
function scimTypeOf(error: ApiError): string | undefined {
  const declared = error.extra.scimType;
  if (typeof declared === "string") return declared;
  if (error.status !== 400) return undefined;
  return error.detail.startsWith("Malformed JSON body") ? "invalidSyntax" : "invalidValue";
}

/** Every failure on a SCIM path, 401 to 500, as a SCIM Error (`status` as a string, RFC 7644 §3.12). */
export const scimErrorRenderer: ErrorRenderer = {
  matches: (path) => SCIM_PATH.test(path),
  render(error) {
    const scimType = scimTypeOf(error);
    const errorId = typeof error.extra.errorId === "string" ? error.extra.errorId : null;
    const body = {
      schemas: [ERROR_SCHEMA],
      status: String(error.status),
      ...(scimType ? { scimType } : {}),
      detail: errorId ? `${error.detail} (errorId ${errorId})` : error.detail,
    };
    const response = new Response(JSON.stringify(body), { status: error.status, headers: error.headers });
    response.headers.set("Content-Type", `${SCIM_MEDIA_TYPE}; charset=utf-8`);
    return response;
  },
};

const mediaTypes = (header: string | null) =>
  (header ?? "").split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());

/**
 * RFC 7644 §3.8: answer `application/scim+json` unless the client asked for `application/json`
 * and not for the SCIM type.
 */
export function responseMediaType(request: Request): string {
  const accepted = mediaTypes(request.headers.get("accept"));
  if (accepted.includes(SCIM_MEDIA_TYPE)) return SCIM_MEDIA_TYPE;
  return accepted.includes("application/json") ? "application/json" : SCIM_MEDIA_TYPE;
}

export function scimResponse(
  request: Request,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("Content-Type", `${responseMediaType(request)}; charset=utf-8`);
  return response;
}

/**
 * Request bodies: the SCIM type, plain JSON, and Sentry's `application/json+scim` (docs/scim.md,
 * "6. Discovery and errors"); no header is taken as JSON.
 */
const ACCEPTED_BODY_TYPES = new Set([SCIM_MEDIA_TYPE, "application/json", "application/json+scim"]);

export function assertJsonBody(request: Request): void {
  const header = request.headers.get("content-type");
  if (header === null) return;
  const [type] = mediaTypes(header);
  if (type && !ACCEPTED_BODY_TYPES.has(type)) {
    throw scimError(
      415,
      null,
      `Unsupported Content-Type ${JSON.stringify(type)}: send ${SCIM_MEDIA_TYPE} or application/json`,
    );
  }
}
