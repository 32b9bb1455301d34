import { toNextJsHandler } from "faultline/next";
import { createDashboard } from "faultline/ui";

// The dashboard (docs/dashboard.md): an optional catch-all, so /admin/errors itself matches. It
// calls the API mounted at /api/faultline; the instance's authenticate hook reads the session.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const { GET, HEAD } = toNextJsHandler(createDashboard({ apiBasePath: "/api/faultline", organization: "demo" }), { basePath: "/admin/errors" });
