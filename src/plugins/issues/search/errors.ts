import { ApiError } from "../../../http/errors.js";

/** A 400 for a query that does not parse: `Error parsing search query: <why>`. */
export function searchError(why: string): ApiError {
  return new ApiError(400, `Error parsing search query: ${why}`, { errors: { query: [why] } });
}
