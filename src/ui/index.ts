// `faultline/ui`: the embeddable dashboard (docs/dashboard.md). Independent of the API instance:
// it serves static files and the browser calls the API, mounted wherever the host put it.
export { createDashboard, type Dashboard, type DashboardOptions } from "./dashboard.js";
export { CONTENT_SECURITY_POLICY } from "./page.js";
