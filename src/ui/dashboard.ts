import { z } from "zod";
import type { HandlerOptions } from "../http/handler-options.js";
import type { FaultlineHandler } from "../http/pipeline.js";
import { type Asset, type AssetStore, defaultAssetsDir, type Encoding, loadAssets, type Variant } from "./assets.js";
import { CONTENT_SECURITY_POLICY, type ClientConfig, renderPage } from "./page.js";

const mountPath = z
  .string()
  .regex(/^(\/[\w.~-]+)*\/?$|^$/, "a path like /faultline (letters, digits and . _ ~ - between slashes)")
  .refine((path) => !path.split("/").some((segment) => /^\.+$/.test(segment)), "no . or .. segments")
  .transform((path) => path.replace(/\/+$/, ""));

/**
 * Where the 401 screen sends people: a path on this origin or an http(s) URL (never `javascript:`,
 * nor `//host` or `/\host`, which browsers read as another origin).
 */
const signInUrl = z.string().refine((value) => {
  // Whitespace, control characters and backslashes: browsers strip or rewrite them in URLs.
  if ([...value].some((char) => char <= " " || char === "\u007f" || char === "\\")) return false;
  if (value.startsWith("/")) return !value.startsWith("//");
  return URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
}, "a path on this origin (/login) or an http(s) URL");

export const DashboardOptionsSchema = z.object({
  /** Where the Faultline API handler is mounted on the same origin, `""` (the root) by default. */
  apiBasePath: mountPath.default(""),
  /** The dashboard's mount path when the adapter does not report one (`toNodeHandler` without `basePath`). */
  basePath: mountPath.default(""),
  /** The organization the dashboard opens at its root; without it, the root asks for a slug. */
  organization: z
    .string()
    .regex(/^[\w-]+$/)
    .optional(),
  /** How often open screens look for new events, in milliseconds (0: never). */
  pollIntervalMs: z.number().int().min(0).max(3_600_000).default(10_000),
  /**
   * The host's sign-in page, linked from the screen a 401 shows (no session: the `authenticate`
   * hook returned null). Without it, that screen says what to configure.
   */
  signInUrl: signInUrl.optional(),
  /**
   * The query parameter of `signInUrl` that carries the dashboard page to come back to (a path on
   * this origin, `/admin/errors/acme/issues/12`); `false`: none.
   */
  signInReturnParam: z
    .union([z.string().regex(/^[\w.-]+$/, "a query parameter name"), z.literal(false)])
    .default("returnTo"),
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
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", ...headers },
  });
}

/**
 * The pre-compressed twin to send: the one the client weights highest in Accept-Encoding (brotli,
 * the smaller, on a tie), or none when it accepts neither or prefers the bytes as they are.
 */
export function chooseEncoding(header: string | null, asset: Pick<Asset, "encoded">): Encoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding = "", ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = parameters.map((parameter) => /^q=([\d.]+)$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (coding) weights.set(coding, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get("*") ?? 0;
  let best: Encoding | undefined;
  let bestWeight = 0;
  for (const encoding of ["br", "gzip"] as const) {
    if (asset.encoded[encoding] && weightOf(encoding) > bestWeight) [best, bestWeight] = [encoding, weightOf(encoding)];
  }
  // `identity` is acceptable unless refused; it wins only when weighted above the best compression.
  return (weights.get("identity") ?? 0) > bestWeight ? undefined : best;
}

/** If-None-Match (weak comparison, as RFC 9110 asks for it): `*`, or one of the listed tags. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
  });
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
    if (request.method !== "GET" && request.method !== "HEAD")
      return text(405, "Method not allowed", { allow: "GET, HEAD" });
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
      const encoding = chooseEncoding(request.headers.get("accept-encoding"), asset);
      const variant: Variant = (encoding && asset.encoded[encoding]) || asset;
      const headers: Record<string, string> = {
        "cache-control": IMMUTABLE,
        // Every answer here depends on Accept-Encoding, the uncompressed one too: a shared cache
        // must not hand it (or a brotli body) to a client that asked otherwise.
        vary: "Accept-Encoding",
        etag: variant.etag,
        "x-content-type-options": "nosniff",
      };
      if (matchesEtag(request.headers.get("if-none-match"), variant.etag))
        return new Response(null, { status: 304, headers });
      return new Response(head ? null : variant.body, {
        headers: {
          ...headers,
          "content-type": asset.type,
          "content-length": String(variant.body.byteLength),
          ...(encoding && { "content-encoding": encoding }),
        },
      });
    }
    // A page path of the client's router; anything shaped like a file (or an encoded slash/dot
    // trick) is not one.
    if (/\.[\w]+$|%2e|%2f|%5c|\\/i.test(rest)) return text(404, "Not found");
    const config: ClientConfig = {
      base: base.data,
      api: options.apiBasePath,
      organization: options.organization ?? null,
      pollMs: options.pollIntervalMs,
      signInUrl: options.signInUrl ?? null,
      signInReturnParam: options.signInReturnParam || null,
    };
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
