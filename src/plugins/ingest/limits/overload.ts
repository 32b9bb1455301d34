import { monitorEventLoopDelay } from "node:perf_hooks";

/** The part of node's event-loop delay histogram the monitor reads (values in nanoseconds). */
export interface DelayHistogram {
  readonly max: number;
  enable(): boolean | void;
  disable(): boolean | void;
  reset(): void;
}

export interface OverloadMonitorOptions {
  /** Length of a window: the delay is read and the histogram reset this often. */
  intervalMs?: number;
  /** Sampling resolution of the histogram; node records each gap between its ticks, this included. */
  resolutionMs?: number;
  histogram?: DelayHistogram;
  now?: () => number;
}

/** 100 ms: a storm is noticed, and its end too, within a tenth of a second. */
const WINDOW_MS = 100;
/** node's default: an idle process wakes 100 times a second for it, which costs next to nothing. */
const RESOLUTION_MS = 10;

/**
 * Says whether the event loop is overloaded: the last window's worst delay above `boundMs`.
 *
 * The worst delay (max), not a percentile: at a 10 ms resolution a 100 ms window holds at most
 * ten samples, and fewer exactly when the loop is slow (one per turn), so its p99 is its max
 * anyway; and the max is what a host request that arrived in that window waited at worst. The
 * bound, not a percentile, is what absorbs ordinary blips (GC, a large synchronous query).
 *
 * node's histogram is blind around a reset: it records the gap since its previous tick, and after
 * a reset only from its first tick on. And node's timers are scheduled from the loop's time, which
 * a block leaves stale, so right after a block an interval may fire again within milliseconds. So
 * a window
 * - is closed in the check phase after the window timer fired (setImmediate): after a block, JS
 *   timers due earlier than the histogram's own (a keep-alive timeout, say) run first, and the
 *   histogram records the block only after them;
 * - times its own first tick: a block that starts right after the reset delays it by as much;
 * - goes on when the timer fires before half its length has passed (the verdict of the previous
 *   window holds meanwhile), rather than judge a few milliseconds between two blocks.
 */
export class EventLoopDelayMonitor {
  readonly #intervalMs: number;
  readonly #resolutionMs: number;
  readonly #histogram: DelayHistogram;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #firstTick: NodeJS.Timeout | undefined;
  #windowStartedAt = 0;
  #firstTickLateMs = 0;
  #delayMs = 0;

  constructor(
    readonly boundMs: number,
    options: OverloadMonitorOptions = {},
  ) {
    this.#intervalMs = options.intervalMs ?? WINDOW_MS;
    this.#resolutionMs = options.resolutionMs ?? RESOLUTION_MS;
    this.#histogram = options.histogram ?? monitorEventLoopDelay({ resolution: this.#resolutionMs });
    this.#now = options.now ?? (() => performance.now());
  }

  /** Starts sampling (idempotent); the timers never hold the process open. Stopped by {@link stop}. */
  start(): void {
    if (this.#timer) return;
    this.#histogram.enable();
    this.#startWindow(this.#now());
    const closeWindow = () => {
      if (this.#timer) this.endWindow(); // not after stop()
    };
    this.#timer = setInterval(() => setImmediate(closeWindow), this.#intervalMs).unref();
  }

  /** Stops sampling; a stopped monitor never reports overload. */
  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#firstTick);
    this.#timer = undefined;
    this.#firstTick = undefined;
    this.#histogram.disable();
    this.#delayMs = 0;
  }

  /** Closes the current window (the timer calls it): its worst delay decides until the next window closes. A window too short to judge goes on. */
  endWindow(): void {
    const now = this.#now();
    if (now - this.#windowStartedAt < this.#intervalMs / 2) return;
    const recordedMs = this.#histogram.max / 1e6 - this.#resolutionMs;
    this.#delayMs = Math.max(0, recordedMs, this.#firstTickLateMs);
    this.#startWindow(now);
  }

  #startWindow(now: number): void {
    this.#histogram.reset();
    this.#windowStartedAt = now;
    this.#firstTickLateMs = 0;
    clearTimeout(this.#firstTick);
    this.#firstTick = setTimeout(() => {
      this.#firstTickLateMs = this.#now() - now - this.#resolutionMs;
    }, this.#resolutionMs).unref();
  }

  /** The last window's worst event-loop delay, in milliseconds. */
  get delayMs(): number {
    return this.#delayMs;
  }

  get overloaded(): boolean {
    return this.#delayMs > this.boundMs;
  }
}
