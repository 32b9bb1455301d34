const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "3 minutes ago" (the exact time goes in a title/datetime beside it). */
export function ago(iso: string): string {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  for (const [unit, size] of units)
    if (Math.abs(seconds) >= size || unit === "second") return relative.format(Math.round(seconds / size), unit);
  return iso;
}

export const exact = (iso: string) => new Date(iso).toLocaleString();

const compact = new Intl.NumberFormat(undefined, { notation: "compact" });
export const count = (value: string | number) => compact.format(Number(value));
