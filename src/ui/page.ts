/** The client's settings, read from a <meta> tag (no inline script under the CSP). */
export interface ClientConfig {
  /** The dashboard's own mount path ("" at the root). */
  base: string;
  /** Where the Faultline API is mounted on the same origin ("" at the root). */
  api: string;
  organization: string | null;
  pollMs: number;
  /** The host's sign-in page, linked from the 401 screen. */
  signInUrl: string | null;
  /** Its query parameter for the page to return to. */
  signInReturnParam: string | null;
}

/** Same-origin only; no inline script or style; nothing may frame it but the host itself. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** index.html for one request: asset URLs carry the mount path the adapter reported. */
export function renderPage(config: ClientConfig, assets: { script: string; style: string }): string {
  const prefix = `${config.base}/assets/`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="faultline-dashboard" content="${escapeAttribute(JSON.stringify(config))}">
<title>Faultline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeAttribute(prefix + assets.style)}">
<script type="module" src="${escapeAttribute(prefix + assets.script)}"></script>
</head>
<body>
<div id="app"><noscript>The Faultline dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
}
