import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { type HasHandler, toWebRequest } from "../node/index.js";
import { isJson } from "../node/response.js";
import { jsonTextOf } from "../../src/http/responses.js";

export interface FaultlineFastifyOptions {
  faultline: HasHandler;
  /**
   * Largest body Fastify reads for Faultline's routes (default 20 MiB, the ingest limit); Faultline
   * applies its own per-route limits below it.
   */
  bodyLimit?: number;
}

const DEFAULT_BODY_LIMIT = 20 * 1024 * 1024;

/**
 * `app.register(faultlineFastify, { prefix: "/faultline", faultline })`.
 *
 * Encapsulated (fastify-plugin with `encapsulate: true`, so `prefix` holds): inside its own scope
 * it drops the inherited body parsers and reads every content type as a Buffer, handed to
 * Faultline as is. The host's JSON parser, hooks and routes outside the prefix are untouched.
 */
const plugin: FastifyPluginAsync<FaultlineFastifyOptions> = async (app, { faultline, bodyLimit = DEFAULT_BODY_LIMIT }) => {
  if (!faultline || typeof faultline.handler !== "function") throw new TypeError("faultlineFastify: pass { faultline } (an instance from createFaultline)");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_request, body, done) => done(null, body));
  const basePath = app.prefix;
  // Fastify sends a web Response itself (status, every header, the streamed body); JSON goes as
  // one Buffer with a Content-Length instead of a chunked stream.
  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<Response | Buffer> => {
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const response = await faultline.handler(toWebRequest(request.raw, { url: request.raw.url, body }), { basePath });
    if (!response.body || !isJson(response)) return response;
    reply.code(response.status);
    for (const [name, value] of response.headers) reply.header(name, value);
    const text = jsonTextOf(response);
    return text !== undefined ? Buffer.from(text) : Buffer.from(await response.arrayBuffer());
  };
  app.all("/", handle);
  app.all("/*", handle);
};

export const faultlineFastify = fastifyPlugin(plugin, { name: "faultline", fastify: "4.x || 5.x", encapsulate: true });
export default faultlineFastify;
