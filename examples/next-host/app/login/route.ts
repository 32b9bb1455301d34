import { SESSION_COOKIE, session } from "#lib/faultline";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A stand-in for your app's sign-in: sets the session cookie the authenticate hook reads, then opens the dashboard. */
export function GET(): Response {
  return new Response(null, {
    status: 303,
    headers: { location: "/admin/errors", "set-cookie": `${SESSION_COOKIE}=${session.secret}; Path=/; HttpOnly; SameSite=Strict` },
  });
}
