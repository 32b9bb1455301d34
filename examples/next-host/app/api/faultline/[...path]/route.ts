import { toNextJsHandler } from "faultline/next";
import { faultline } from "#lib/faultline";

export const runtime = "nodejs"; // PGlite, pg and node:zlib need Node, not the edge runtime
export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD } = toNextJsHandler(faultline, { basePath: "/api/faultline" });
