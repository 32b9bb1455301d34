/** Types of bench-envelope.mjs (plain JavaScript: the load generators run it without a build). */
export type BenchEvent = {
  event_id: string;
  timestamp: number;
  platform: string;
  level: string;
  environment: string;
  release: string;
  tags: Record<string, string>;
  user: { id: string };
  exception: { values: Array<{ type: string; value: string; stacktrace: { frames: Array<Record<string, unknown>> } }> };
};
export function benchEvent(i: number, fingerprints: number): BenchEvent;
export function benchEnvelope(i: number, fingerprints?: number): { eventId: string; body: string };
