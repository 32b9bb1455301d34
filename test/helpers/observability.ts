import {
  type Attributes,
  type Context,
  type ContextManager,
  context as contextApi,
  ROOT_CONTEXT,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
  trace,
  TraceFlags,
} from "@opentelemetry/api";
import { randomBytes } from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text format (0.0.4) as far as tests read it: samples with labels; comments skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(LABEL))
      labels[key as string] = (raw as string).replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels` (0 when absent, as a counter not yet incremented reads). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

/** A finished span as the recording provider keeps it. */
export interface RecordedSpan {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  status: SpanStatus;
  parentSpanId: string | undefined;
  spanId: string;
  ended: boolean;
}

/**
 * A TracerProvider implementing the @opentelemetry/api interfaces that records every span: what
 * an SDK does, without an SDK (none is installed). Registered globally, it is what Faultline's
 * `trace.getTracer()` reaches.
 */
export function recordingTracerProvider(): TracerProvider & { spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const tracer: Tracer = {
    startSpan(name: string, options: SpanOptions = {}, parent: Context = contextApi.active()): Span {
      const parentContext = trace.getSpanContext(parent);
      const spanContext: SpanContext = {
        traceId: parentContext?.traceId ?? randomBytes(16).toString("hex"),
        spanId: randomBytes(8).toString("hex"),
        traceFlags: TraceFlags.SAMPLED,
      };
      const record: RecordedSpan = {
        name,
        kind: options.kind ?? SpanKind.INTERNAL,
        attributes: { ...options.attributes },
        status: { code: 0 },
        parentSpanId: parentContext?.spanId,
        spanId: spanContext.spanId,
        ended: false,
      };
      spans.push(record);
      const span: Span = {
        spanContext: () => spanContext,
        setAttribute: (key, value) => ((record.attributes[key] = value), span),
        setAttributes: (attributes) => (Object.assign(record.attributes, attributes), span),
        addEvent: () => span,
        addLink: (_link: Link) => span,
        addLinks: () => span,
        setStatus: (status) => ((record.status = status), span),
        updateName: (newName) => ((record.name = newName), span),
        end: () => void (record.ended = true),
        isRecording: () => !record.ended,
        recordException: () => {},
      };
      return span;
    },
    startActiveSpan(name: string, ...rest: unknown[]) {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options, parent] = rest as [SpanOptions | undefined, Context | undefined];
      const base = parent ?? contextApi.active();
      const span = this.startSpan(name, options, base);
      return contextApi.with(trace.setSpan(base, span), fn, undefined, span);
    },
  } as Tracer;
  return { spans, getTracer: () => tracer };
}

/** A pino-shaped logger that records every line with the bindings of the child it came from. */
export function recordingPinoLogger() {
  const lines: Array<{
    level: string;
    bindings: Record<string, unknown>;
    fields: Record<string, unknown>;
    msg: string;
  }> = [];
  const make = (bindings: Record<string, unknown>) => {
    const at = (level: string) => (obj: object | string, msg?: string) =>
      void lines.push({
        level,
        bindings,
        fields: typeof obj === "string" ? {} : { ...obj },
        msg: typeof obj === "string" ? obj : (msg ?? ""),
      });
    return {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (more: Record<string, unknown>) => make({ ...bindings, ...more }),
    };
  };
  return { logger: make({}), lines };
}

/** The context manager an SDK registers, on AsyncLocalStorage: makes a span started inside another its child. */
export function asyncLocalContextManager(): ContextManager {
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.apply(thisArg, args)),
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => manager,
  };
  return manager;
}
