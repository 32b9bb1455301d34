import { z } from "zod";
import type { FaultlineHandler, HandlerOptions } from "../http/pipeline.js";
import { type AssetStore, defaultAssetsDir, loadAssets } from "./assets.js";
import { CONTENT_SECURITY_POLICY, type ClientConfig, renderPage } from "./page.js";

const mountPath = z
  .string()
  .regex(/^(\/[\w.~-]+)*\/?$|^$/, "a path like /faultline (letters, digits and . _ ~ - between slashes)")
  .refine((path) => !path.split("/").some((segment) => /^\.+$/.test(segment)), "no . or .. segments")
  .transform((path) => path.replace(/\/+$/, ""));

export const DashboardOptionsSchema = z.object({
  /** Where the Faultline API handler is mounted on the same origin, `""` (the root) by default. */
  apiBasePath: mountPath.default(""),
  /** The dashboard's mount path when the adapter does not report one (`toNodeHandler` without `basePath`). */
  basePath: mountPath.default(""),
  /** The organization the dashboard opens at its root; without it, the root asks for a slug. */
  organization: z.string().regex(/^[\w-]+$/).optional(),
  /** How often open screens look for new events, in milliseconds (0: never). */
  pollIntervalMs: z.number().int().min(0).max(3_600_000).default(10_000),
  /** A directory holding a dashboard build (`ui-assets/` of the package by default). */
  assetsDir: z.string().min(1).optional(),
});
export type DashboardOptions = z.input<typeof DashboardOptionsSchema>;

export interface Dashboard {
  /** Mount it like a Faultline instance: `app.use("/admin/errors", toExpressHandler(dashboard))`. */
  handler: FaultlineHandler;
}

const IMMUTABLE = "public, max-age=31536000, immutable";

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", ...headers } });
}

/**
 * The embeddable dashboard: a prebuilt single-page app that speaks only Faultline's public HTTP
 * API on the same origin, so the host's `authenticate` hook (its own session cookie) decides who
 * sees what. Serves `index.html` (no-cache, strict CSP) for every page path under the mount path,
 * and the hashed assets listed in the build's manifest (cached for a year); nothing else.
 */
export function createDashboard(input: DashboardOptions = {}): Dashboard {
  const options = DashboardOptionsSchema.parse(input);
  let assets: Promise<AssetStore> | undefined;
  const load = () => (assets ??= loadAssets(options.assetsDir ?? defaultAssetsDir()));

  const handler: FaultlineHandler = async (request: Request, perRequest?: HandlerOptions) => {
    const base = mountPath.safeParse(perRequest?.basePath ?? options.basePath);
    if (!base.success) return text(500, "faultline/ui: the adapter reported an invalid mount path");
    const path = new URL(request.url).pathname;
    if (path !== base.data && !path.startsWith(`${base.data}/`)) return text(404, "Not found");
    if (request.method !== "GET" && request.method !== "HEAD") return text(405, "Method not allowed", { allow: "GET, HEAD" });
    const rest = path.slice(base.data.length);
    let store: AssetStore;
    try {
      store = await load();
    } catch (error) {
      assets = undefined; // a build may appear later (next request tries again)
      return text(503, error instanceof Error ? error.message : String(error));
    }
    const head = request.method === "HEAD";

    if (rest.startsWith("/assets/")) {
      const asset = store.get(rest.slice("/assets/".length));
      if (!asset) return text(404, "Not found");
      return new Response(head ? null : asset.body, {
        headers: { "content-type": asset.type, "content-length": String(asset.body.byteLength), "cache-control": IMMUTABLE, "x-content-type-options": "nosniff" },
      });
    }
    // A page path of the client's router; anything shaped like a file (or an encoded slash/dot
    // trick) is not one.
    if (/\.[\w]+$|%2e|%2f|%5c|\\/i.test(rest)) return text(404, "Not found");
    const config: ClientConfig = { base: base.data, api: options.apiBasePath, organization: options.organization ?? null, pollMs: options.pollIntervalMs };
    const body = renderPage(config, store.manifest);
    return new Response(head ? null : body, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "content-security-policy": CONTENT_SECURITY_POLICY,
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",
      },
    });
  };
  return { handler };
}
