/** Settings the server put in <meta name="faultline-dashboard"> (the CSP forbids inline scripts). */
export interface Config {
  base: string;
  api: string;
  organization: string | null;
  pollMs: number;
  /** The host's sign-in page, linked from the 401 screen. */
  signInUrl: string | null;
  /** Its query parameter for the page to return to. */
  signInReturnParam: string | null;
}

export function readConfig(): Config {
  const raw = document.querySelector('meta[name="faultline-dashboard"]')?.getAttribute("content") ?? "{}";
  const parsed = JSON.parse(raw) as Partial<Config>;
  return {
    base: parsed.base ?? "",
    api: parsed.api ?? "",
    organization: parsed.organization ?? null,
    pollMs: parsed.pollMs ?? 10_000,
    signInUrl: parsed.signInUrl ?? null,
    signInReturnParam: parsed.signInReturnParam ?? null,
  };
}

export const config = readConfig();
