import type { ZodError } from "zod";

/** Field path → messages, as rendered in the `errors` member of an error body. */
export type FieldErrors = Record<string, string[]>;

/**
 * The one error type of the HTTP layer. Each protocol renders it in its own shape
 * (Sentry-style `{detail}` by default, SCIM errors on SCIM paths).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** Extra members of the error body (`errors`, `requiredScopes`, …). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

export const NOT_FOUND_DETAIL = "The requested resource does not exist";

export function notFound(detail = NOT_FOUND_DETAIL): ApiError {
  return new ApiError(404, detail);
}

export function badRequest(detail: string, errors?: FieldErrors): ApiError {
  return new ApiError(400, detail, errors ? { errors } : {});
}

/** A 400 naming the first failing field in `detail` and every failing field in `errors`. */
export function fieldErrors(errors: FieldErrors): ApiError {
  const [field, messages] = Object.entries(errors)[0] ?? ["request", ["invalid"]];
  return badRequest(`Invalid request: ${field}: ${messages[0] ?? "invalid"}`, errors);
}

/** Flattens a zod error into dotted field paths; `prefix` names where the value came from. */
export function zodFieldErrors(error: ZodError, prefix?: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const path = [prefix, ...issue.path.map(String)].filter((p) => p !== undefined && p !== "").join(".") || "body";
    (errors[path] ??= []).push(issue.message);
  }
  return errors;
}
