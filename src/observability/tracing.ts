import type * as OpenTelemetryApi from "@opentelemetry/api";
import type { Span, SpanAttributes, SpanContext, SpanStatusCode } from "@opentelemetry/api";

/**
 * Where `@opentelemetry/api` (major version 1) keeps what a host registered with it: its tracer
 * provider, context manager, propagator. Set only once something (an SDK) registered; until then
 * every span Faultline would start is a non-recording one, so the API need not be loaded at all.
 */
const OPENTELEMETRY_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The span kinds Faultline starts, by name (their values come from the loaded API). */
export type FaultlineSpanKind = "server" | "client" | "internal";

/** A failed span's status code (OpenTelemetry's `SpanStatusCode.ERROR`, a fixed value of the specification). */
export const SPAN_STATUS_ERROR = 2 as SpanStatusCode.ERROR;

let openTelemetry: Promise<typeof OpenTelemetryApi> | undefined;

/**
 * The OpenTelemetry API, loaded on first need: when the host has registered an SDK with it. A host
 * that never traces never loads it (docs/performance.md, Embedded footprint).
 */
function loadedOpenTelemetry(): Promise<typeof OpenTelemetryApi> | undefined {
  if (!openTelemetry && OPENTELEMETRY_GLOBAL in globalThis) openTelemetry = import("@opentelemetry/api");
  return openTelemetry;
}

const INVALID_SPAN_CONTEXT: SpanContext = { traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 };

/** What the API's tracer gives without an SDK: a span that records nothing. */
const nonRecordingSpan: Span = {
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => nonRecordingSpan,
  setAttributes: (_attributes: SpanAttributes) => nonRecordingSpan,
  addEvent: () => nonRecordingSpan,
  addLink: () => nonRecordingSpan,
  addLinks: () => nonRecordingSpan,
  setStatus: () => nonRecordingSpan,
  updateName: () => nonRecordingSpan,
  end: () => undefined,
  isRecording: () => false,
  recordException: () => undefined,
};

/**
 * Runs `work` in a new active span of the tracer "faultline" (a child of the host's current span),
 * as `tracer.startActiveSpan` does; `work` ends the span. Without a registered SDK, `work` gets a
 * span that records nothing, and the OpenTelemetry API is not loaded.
 */
export async function inActiveSpan<T>(
  name: string,
  options: { kind?: FaultlineSpanKind; attributes?: SpanAttributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const api = loadedOpenTelemetry();
  if (!api) return work(nonRecordingSpan);
  const { trace, SpanKind } = await api;
  const kind = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL }[
    options.kind ?? "internal"
  ];
  return trace.getTracer("faultline").startActiveSpan(name, { kind, attributes: options.attributes }, work);
}
