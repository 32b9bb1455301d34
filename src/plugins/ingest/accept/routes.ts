import { defineEndpoint, type EndpointContext } from "../../../http/endpoint.js";
import { CORS_RESPONSE_HEADERS, preflightResponse } from "./cors.js";
import { INGEST_LIMITS } from "../limits/limits.js";
import type { IngestInput } from "./service.js";
import { IngestServiceToken } from "../tokens.js";

const ENVELOPE_PATH = "/api/{project_id}/envelope/";
const STORE_PATH = "/api/{project_id}/store/";

type IngestContext = Pick<
  EndpointContext<string, { project_id: string }, unknown, unknown>,
  "params" | "request" | "url" | "rawBody" | "clientAddress"
>;

function ingestInput(ctx: IngestContext): IngestInput {
  return {
    projectId: ctx.params.project_id,
    headers: ctx.request.headers,
    query: ctx.url.searchParams,
    body: ctx.rawBody ?? new Uint8Array(0),
    clientAddress: ctx.clientAddress,
  };
}

/** DSN keys, not tokens, authenticate here (the service checks them); bodies stay raw for decompression. */
const ingestRoute = { auth: "none", rawBody: true, bodyLimit: INGEST_LIMITS.bodyBytes } as const;

export const postEnvelope = defineEndpoint({
  ...ingestRoute,
  method: "POST",
  path: ENVELOPE_PATH,
  operationId: "ingest.envelope",
  summary: "Receive an envelope from a Sentry SDK",
  handler: async (ctx) => ({
    body: await ctx.container.resolve(IngestServiceToken).ingestEnvelope(ingestInput(ctx)),
    headers: CORS_RESPONSE_HEADERS,
  }),
});

export const postStore = defineEndpoint({
  ...ingestRoute,
  method: "POST",
  path: STORE_PATH,
  operationId: "ingest.store",
  summary: "Receive one JSON event (legacy store endpoint)",
  handler: async (ctx) => ({
    body: await ctx.container.resolve(IngestServiceToken).ingestStore(ingestInput(ctx)),
    headers: CORS_RESPONSE_HEADERS,
  }),
});

export const preflightEnvelope = defineEndpoint({
  method: "OPTIONS",
  path: ENVELOPE_PATH,
  operationId: "ingest.envelope.preflight",
  summary: "CORS preflight for browser SDKs",
  auth: "none",
  handler: preflightResponse,
});

export const preflightStore = defineEndpoint({
  method: "OPTIONS",
  path: STORE_PATH,
  operationId: "ingest.store.preflight",
  summary: "CORS preflight for browser SDKs",
  auth: "none",
  handler: preflightResponse,
});

export const ingestEndpoints = [postEnvelope, postStore, preflightEnvelope, preflightStore];
