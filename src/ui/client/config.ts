/** Settings the server put in <meta name="faultline-dashboard"> (the CSP forbids inline scripts). */
export interface Config {
  base: string;
  api: string;
  organization: string | null;
  pollMs: number;
}

export function readConfig(): Config {
  const raw = document.querySelector('meta[name="faultline-dashboard"]')?.getAttribute("content") ?? "{}";
  const parsed = JSON.parse(raw) as Partial<Config>;
  return { base: parsed.base ?? "", api: parsed.api ?? "", organization: parsed.organization ?? null, pollMs: parsed.pollMs ?? 10_000 };
}

export const config = readConfig();
