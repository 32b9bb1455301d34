import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import type { Counter, Gauge, Histogram, LabelValues, Registry } from "prom-client";

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

type Instrument = Counter<string> | Gauge<string> | Histogram<string>;

let promClient: typeof PromClient | undefined;

/**
 * prom-client, loaded on first use (synchronously: it is CommonJS, so `require` gives the same
 * module a host's `import` does). Until then a start has not paid for loading it
 * (docs/performance.md, Embedded footprint).
 */
function loadedPromClient(): typeof PromClient {
  return (promClient ??= createRequire(import.meta.url)("prom-client") as typeof PromClient);
}

/**
 * One instance's Prometheus metrics. The core and each feature area register the metrics they
 * own here (by name, without the prefix; registering a name twice returns the first metric), and
 * only increment them on hot paths. Gauges that need the database are computed at scrape time
 * (`collect`), not kept up to date per request.
 *
 * With a registry of the instance's own, prom-client is loaded when a metric is first recorded
 * or the registry first read (a scrape): a metric registered before that is a stand-in that
 * creates every registered metric at its first use, so a scrape lists all of them, as before.
 */
export class Metrics {
  readonly #options: MetricsOptions;
  readonly #prefix: string;
  readonly #own = new Map<string, Instrument>();
  /** Creations of the metrics registered before prom-client was loaded. */
  readonly #deferred: Array<() => Instrument> = [];
  #registry: Registry | undefined;

  constructor(options: MetricsOptions = {}) {
    this.#options = options;
    this.#prefix = options.prefix ?? "faultline_";
    // A host's registry is scraped by the host, not through `registry`: its metrics are created at
    // once (the host has loaded prom-client anyway).
    this.#registry = options.registry;
  }

  /** The registry this instance's metrics live in (its own, or the host's). */
  get registry(): Registry {
    if (!this.#registry) {
      this.#registry = this.#options.registry ?? new (loadedPromClient().Registry)();
      for (const create of this.#deferred.splice(0)) create();
    }
    return this.#registry;
  }

  /**
   * A counter; each of `initialLabels` exists from the start at 0 (so `rate()` over it works before
   * its first increment), without loading prom-client before the counter's first use.
   */
  counter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    initialLabels: readonly LabelValues<L>[] = [],
  ): Counter<L> {
    return this.#once(name, () => {
      const counter = new (loadedPromClient().Counter)<L>({
        name: this.#prefix + name,
        help,
        labelNames,
        registers: [this.registry],
      });
      for (const labels of initialLabels) counter.inc(labels, 0);
      return counter;
    });
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
        new (loadedPromClient().Gauge)<L>({
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
      () =>
        new (loadedPromClient().Histogram)<L>({
          name: this.#prefix + name,
          help,
          labelNames,
          buckets,
          registers: [this.registry],
        }),
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

  #once<M extends Instrument>(name: string, create: () => M): M {
    const existing = this.#own.get(name);
    if (existing) return existing as M;
    const metric = this.#registry ? create() : this.#deferredMetric(create);
    this.#own.set(name, metric);
    return metric;
  }

  /**
   * A stand-in for a metric registered before prom-client was loaded: its first use loads it and
   * creates every deferred metric (`registry`), then it forwards to its own (methods bound once).
   */
  #deferredMetric<M extends Instrument>(create: () => M): M {
    let metric: M | undefined;
    const created = (): M => (metric ??= create());
    this.#deferred.push(created);
    const bound = new Map<PropertyKey, unknown>();
    return new Proxy({} as M, {
      get: (_target, key) => {
        void this.registry;
        const real = created();
        const value: unknown = Reflect.get(real, key, real);
        if (typeof value !== "function") return value;
        if (!bound.has(key)) bound.set(key, (value as (...args: unknown[]) => unknown).bind(real));
        return bound.get(key);
      },
    });
  }
}
