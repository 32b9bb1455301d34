import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What `metrics` in the options accepts. */
export interface MetricsOptions {
  /**
   * A prom-client `Registry` of the host's: Faultline's metrics are registered there too, so the
   * host's own `/metrics` shows them. Absent: a registry of this instance's own (never
   * prom-client's global one, so two instances in one process never clash).
   */
  registry?: Registry;
  /** Prepended to every metric name (default `faultline_`); two instances sharing one registry need different ones. */
  prefix?: string;
}

/** Latency buckets in seconds: from a cached token check to a slow list query. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One instance's Prometheus metrics. The core and each feature area register the metrics they
 * own here (by name, without the prefix; registering a name twice returns the first metric), and
 * only increment them on hot paths. Gauges that need the database are computed at scrape time
 * (`collect`), not kept up to date per request.
 */
export class Metrics {
  /** The registry this instance's metrics live in (its own, or the host's). */
  readonly registry: Registry;
  readonly #prefix: string;
  readonly #own = new Map<string, Counter<string> | Gauge<string> | Histogram<string>>();

  constructor(options: MetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    this.#prefix = options.prefix ?? "faultline_";
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return this.#once(
      name,
      () => new Counter<L>({ name: this.#prefix + name, help, labelNames, registers: [this.registry] }),
    );
  }

  /** A gauge; with `collect`, its value is computed when scraped (`this` is the gauge). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => Promise<void> | void,
  ): Gauge<L> {
    return this.#once(
      name,
      () =>
        new Gauge<L>({
          name: this.#prefix + name,
          help,
          labelNames,
          registers: [this.registry],
          ...(collect && {
            collect() {
              return collect(this);
            },
          }),
        }),
    );
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: number[] = LATENCY_BUCKETS,
  ): Histogram<L> {
    return this.#once(
      name,
      () => new Histogram<L>({ name: this.#prefix + name, help, labelNames, buckets, registers: [this.registry] }),
    );
  }

  /** The text exposition of the registry (every metric in it, the host's too when it is the host's). */
  async handler(): Promise<Response> {
    const text = await this.registry.metrics();
    return new Response(text, {
      status: 200,
      headers: { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" },
    });
  }

  #once<M extends Counter<string> | Gauge<string> | Histogram<string>>(name: string, create: () => M): M {
    const existing = this.#own.get(name);
    if (existing) return existing as M;
    const metric = create();
    this.#own.set(name, metric);
    return metric;
  }
}
