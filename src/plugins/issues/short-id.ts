/** `WEB-1`, `WEB-A`, `WEB-10`: the project slug uppercased and a per-project number in base 36. */
export function formatShortId(projectSlug: string, shortNumber: number): string {
  return `${projectSlug.toUpperCase()}-${shortNumber.toString(36).toUpperCase()}`;
}

/** Splits a short id at its last dash; null when it cannot be one. */
export function parseShortId(value: string): { projectSlug: string; shortNumber: number } | null {
  const match = /^(.+)-([0-9A-Za-z]{1,7})$/.exec(value);
  if (!match) return null;
  const shortNumber = Number.parseInt(match[2] as string, 36);
  return Number.isSafeInteger(shortNumber) && shortNumber > 0
    ? { projectSlug: (match[1] as string).toLowerCase(), shortNumber }
    : null;
}
