import { toNextJsHandler } from "faultline/next";
import { faultline } from "#lib/faultline";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD } = toNextJsHandler(() => faultline);
