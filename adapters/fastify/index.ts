import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { type HasHandler, serveNodeRequest } from "../node/index.js";
import { isJson } from "../node/response.js";
import { isWireReply } from "../../src/http/wire.js";

export interface FastifyPluginOptions {
  /**
   * Largest body Fastify reads for Faultline's routes (default 20 MiB, the ingest limit); Faultline
   * applies its own per-route limits below it.
   */
  bodyLimit?: number;
}

/** The options of the deprecated {@link faultlineFastify} plugin: the instance travels with `register`'s options. */
export interface FaultlineFastifyOptions extends FastifyPluginOptions {
  faultline: HasHandler;
}

const DEFAULT_BODY_LIMIT = 20 * 1024 * 1024;
const PLUGIN_META = { name: "faultline", fastify: "4.x || 5.x", encapsulate: true } as const;

const REGISTER_AS_IS =
  "Register toFastifyPlugin(faultline) as it is: its scope reads every body as a Buffer, and something (a hook or parser) replaced that body before Faultline.";

/**
 * Faultline's routes in the plugin's own scope: the inherited body parsers are dropped and every
 * content type is read as a Buffer, handed to Faultline as is. The host's JSON parser, hooks and
 * routes outside the prefix are untouched.
 */
function registerRoutes(app: FastifyInstance, faultline: HasHandler, bodyLimit: number): void {
  if (!faultline || typeof faultline.handler !== "function")
    throw new TypeError("toFastifyPlugin: pass an instance from createFaultline");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_request, body, done) => done(null, body));
  const basePath = app.prefix;
  // Fastify sends a web Response itself (status, every header, the streamed body); JSON goes as
  // one Buffer with a Content-Length instead of a chunked stream.
  const handle = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Response | Buffer | string | undefined> => {
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const requestOptions = {
      url: request.raw.url,
      body,
      parsedBody: body ? undefined : request.body,
      consumedFix: REGISTER_AS_IS,
    };
    // `request.ip` follows the server's `trustProxy` option (X-Forwarded-For only from trusted peers).
    // A malformed Host or request target is answered 400 by the guard, not thrown to Fastify's 500.
    const response = await serveNodeRequest(faultline, request.raw, requestOptions, {
      basePath,
      clientAddress: request.ip,
    });
    // A streaming Response goes to Fastify as it is; a wire reply and a whole JSON body as their text or bytes.
    if (!isWireReply(response) && (!response.body || !isJson(response))) return response;
    reply.code(response.status);
    for (const [name, value] of response.headers) reply.header(name, value);
    return isWireReply(response) ? (response.body ?? undefined) : Buffer.from(await response.arrayBuffer());
  };
  app.all("/", handle);
  app.all("/*", handle);
}

/**
 * A Fastify plugin serving `faultline`: `app.register(toFastifyPlugin(faultline), { prefix: "/faultline" })`.
 *
 * Encapsulated (fastify-plugin with `encapsulate: true`, so `prefix` holds): Faultline gets the
 * exact bytes of every request whatever parsers the host registered, and the host keeps them.
 */
export function toFastifyPlugin(faultline: HasHandler, options: FastifyPluginOptions = {}): FastifyPluginAsync {
  const plugin: FastifyPluginAsync = async (app) =>
    registerRoutes(app, faultline, options.bodyLimit ?? DEFAULT_BODY_LIMIT);
  return fastifyPlugin(plugin, PLUGIN_META);
}

/**
 * @deprecated Use {@link toFastifyPlugin}: `app.register(toFastifyPlugin(faultline), { prefix })`.
 * This plugin takes the instance in `register`'s options (`{ prefix, faultline }`) and stays until the next major.
 */
export const faultlineFastify = fastifyPlugin<FaultlineFastifyOptions>(
  async (app, { faultline, bodyLimit = DEFAULT_BODY_LIMIT }) => registerRoutes(app, faultline, bodyLimit),
  PLUGIN_META,
);
/** @deprecated The default export is the deprecated {@link faultlineFastify}; import `toFastifyPlugin` instead. */
export default faultlineFastify;
