import { html } from "../html.js";

type Points = Array<[number, number]>;

/** A polyline of the period's counts, plain SVG; the numbers are in its accessible name. */
export function Sparkline({ points, label }: { points: Points | undefined; label: string }) {
  if (!points?.length) return null;
  const max = Math.max(1, ...points.map(([, n]) => n));
  const step = 100 / Math.max(1, points.length - 1);
  const line = points.map(([, n], i) => `${(i * step).toFixed(1)},${(22 - (n / max) * 20).toFixed(1)}`).join(" ");
  const total = points.reduce((sum, [, n]) => sum + n, 0);
  return html`<svg class="spark" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label=${`${label}: ${total} events`}>
    <polyline points=${line} fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke" />
  </svg>`;
}

/** Event counts per bucket as bars, with a title per bar (hover) and a summary for screen readers. */
export function BarChart({ points, label, daily }: { points: Points | undefined; label: string; daily: boolean }) {
  if (!points?.length) return html`<p class="muted">No data.</p>`;
  const max = Math.max(1, ...points.map(([, n]) => n));
  const width = 100 / points.length;
  const total = points.reduce((sum, [, n]) => sum + n, 0);
  const when = (seconds: number) =>
    daily
      ? new Date(seconds * 1000).toLocaleDateString()
      : new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return html`<figure class="chart">
    <svg viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label=${`${label}: ${total} events, at most ${max} per ${daily ? "day" : "hour"}`}>
      ${points.map(
        (
          [at, n],
          i,
        ) => html`<rect x=${i * width + width * 0.1} width=${width * 0.8} y=${40 - (n / max) * 38} height=${Math.max((n / max) * 38, n ? 0.5 : 0)}>
          <title>${when(at)}: ${n}</title>
        </rect>`,
      )}
    </svg>
    <figcaption class="muted">${label}: ${total} events</figcaption>
  </figure>`;
}
