import { randomBytes, timingSafeEqual } from "node:crypto";
import { createFaultline, SCOPES } from "faultline";
import { getOrCreateFaultline } from "faultline/next";

// --- the host's own "session": /login (app/login/route.ts) signs the visitor in as the seeded owner.
// A stand-in for your product's sign-in. The dashboard has no login of its own: its API calls carry
// this cookie, and the authenticate hook maps it to a Faultline user. On globalThis, like the
// instance: Next may evaluate this module once per route bundle.
export const SESSION_COOKIE = "demo_session";
const store = globalThis as typeof globalThis & { faultlineDemoSession?: { secret: string; ownerId?: number } };
export const session = (store.faultlineDemoSession ??= { secret: randomBytes(24).toString("hex") });

function hasSession(request: Request): boolean {
  const value = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([0-9a-f]+)`).exec(request.headers.get("cookie") ?? "")?.[1];
  return value !== undefined && value.length === session.secret.length && timingSafeEqual(Buffer.from(value), Buffer.from(session.secret));
}

/** Cookie → the owner; state-changing requests only from this origin (Faultline does no CSRF check). */
function authenticate(request: Request) {
  if (session.ownerId === undefined || !hasSession(request)) return null;
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method) && request.headers.get("origin") !== new URL(request.url).origin) return null;
  return { userId: session.ownerId, scopes: [...SCOPES] };
}

/** One instance per server process, kept on globalThis across hot reloads (`next dev` re-evaluates modules). */
export const faultline = getOrCreateFaultline("main", () =>
  // Unset → a throwaway in-memory PGlite for trying the example; an app of yours leaves `database`
  // out to get DATABASE_URL or a data directory on disk (docs/storage.md).
  createFaultline({ database: process.env.DATABASE_URL || "memory://", authenticate }),
);

/**
 * Development seed, run once at start-up by instrumentation.ts: organization "demo", project "web",
 * and an owner's token (FAULTLINE_TOKEN fixes its value). Your app provisions from its own code instead.
 */
export async function seedDemo(): Promise<string | undefined> {
  const { api } = faultline;
  if (await api.organizations.get("demo")) {
    const owner = await api.users.get("owner");
    if (owner) session.ownerId = Number(owner.id);
    return process.env.FAULTLINE_TOKEN;
  }
  await api.organizations.create({ slug: "demo", name: "Demo" });
  const owner = await api.users.create({ username: "owner", email: "owner@demo.test" });
  await api.members.add({ organization: "demo", user: owner.id, role: "owner" });
  await api.projects.create({ organization: "demo", slug: "web", platform: "node" });
  const { token } = await api.tokens.create({ user: owner.id, scopes: [...SCOPES], token: process.env.FAULTLINE_TOKEN });
  session.ownerId = Number(owner.id);
  return token;
}
