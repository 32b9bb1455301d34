import { Unzip, UnzipInflate } from "fflate";
import { yieldToEventLoop } from "../../../worker/yield.js";

export interface ZipLimits {
  /** Most entries (files) an archive may hold. */
  maxEntries: number;
  /** Most bytes all entries together may unpack to. */
  maxBytes: number;
}

/** What is wrong with an archive (as opposed to a failure of where its entries are written). */
export class InvalidBundleError extends Error {}

/** Where one entry's unpacked bytes go, as they come. */
export interface ZipEntrySink {
  write(data: Uint8Array): void;
  end(): void;
}

/**
 * Archive bytes handed to the inflater at a time. A DEFLATE stream expands at most ~1032×, so one
 * step produces at most ~4 MiB before the size checks see it and the caller writes it away: the
 * bound on what a push holds in memory, whatever the archive's size.
 */
const SLICE_BYTES = 4 * 1024;
/** Slices inflated between two turns of the event loop (~1–4 ms of work), so the host's requests are served during a large bundle. */
const SLICES_PER_TURN = 64;

/**
 * Reads a ZIP archive as it arrives (the artifact bundles sentry-cli builds: stored or deflated
 * entries, sizes in the local headers or in data descriptors) and hands each file's bytes to a
 * sink the caller opens per entry; directories are left out. Nothing of the archive is kept, and
 * `drain` (the caller writing away what its sinks hold) is awaited after every slice, so memory
 * does not depend on the archive's size.
 *
 * Limits hold on what is really unpacked, not on what headers claim: an entry stops with an error
 * as soon as it inflates past the size its local header declares or past what is left of
 * `maxBytes`, which bounds a lying entry (a "zip bomb") to one slice of work. What is wrong with
 * the archive rejects {@link push} with an {@link InvalidBundleError} (the caller records the
 * bundle's `error` state); a failing `drain` rejects it with that failure as it is.
 */
export class ZipStreamReader {
  readonly #unzip: Unzip;
  #failure: Error | undefined;
  #headers = 0;
  #entries = 0;
  #unpacked = 0;

  constructor(
    private readonly limits: ZipLimits,
    openEntry: (name: string) => ZipEntrySink,
    private readonly drain: () => Promise<void>,
  ) {
    this.#unzip = new Unzip((file) => {
      this.#headers += 1;
      if (this.#failure || isDirectory(file.name)) return;
      if (++this.#entries > limits.maxEntries)
        return this.#fail(
          new InvalidBundleError(
            `the bundle has more than ${limits.maxEntries} files; at most ${limits.maxEntries} are accepted`,
          ),
        );
      if (file.compression !== 0 && file.compression !== 8)
        return this.#fail(
          new InvalidBundleError(`unsupported ZIP compression method ${file.compression} for ${file.name}`),
        );
      if (file.originalSize !== undefined && this.#unpacked + file.originalSize > limits.maxBytes)
        return this.#fail(this.#tooLarge());
      const sink = openEntry(file.name);
      let size = 0;
      file.ondata = (error, data, final) => {
        if (this.#failure) return;
        if (error) return this.#fail(error);
        size += data.byteLength;
        this.#unpacked += data.byteLength;
        // Streamed archives declare no size here (it follows the data): only the total bounds them.
        if (file.originalSize !== undefined && size > file.originalSize)
          return this.#fail(
            new InvalidBundleError(
              `${file.name} inflates to more than the ${file.originalSize} bytes its header declares`,
            ),
          );
        if (this.#unpacked > limits.maxBytes) return this.#fail(this.#tooLarge());
        if (data.byteLength > 0) sink.write(data);
        if (final) sink.end();
      };
      file.start();
    });
    this.#unzip.register(UnzipInflate);
  }

  /** Bytes unpacked so far, over every entry. */
  get unpackedBytes(): number {
    return this.#unpacked;
  }

  /** Feeds the next bytes of the archive (`final` with its last ones); rejects once anything is wrong. */
  async push(bytes: Uint8Array, final: boolean): Promise<void> {
    if (bytes.byteLength === 0 && final) this.#step(bytes, true);
    for (let at = 0, slices = 0; at < bytes.byteLength; at += SLICE_BYTES) {
      this.#step(bytes.subarray(at, at + SLICE_BYTES), final && at + SLICE_BYTES >= bytes.byteLength);
      await this.drain();
      if (++slices % SLICES_PER_TURN === 0) await yieldToEventLoop();
    }
    // fflate skips bytes that are not a local header: an archive of none of them was not a ZIP.
    if (final && this.#headers === 0)
      throw (this.#failure = new InvalidBundleError("not a ZIP archive (no file headers found)"));
  }

  #step(slice: Uint8Array, final: boolean): void {
    if (!this.#failure) {
      try {
        this.#unzip.push(slice, final);
      } catch (error) {
        this.#fail(error as Error);
      }
    }
    if (this.#failure) throw this.#failure;
  }

  #fail(error: Error): void {
    this.#failure ??= error instanceof InvalidBundleError ? error : new InvalidBundleError(error.message);
  }

  #tooLarge(): Error {
    return new InvalidBundleError(`the bundle unpacks to more than ${this.limits.maxBytes} bytes`);
  }
}

const isDirectory = (name: string): boolean => name.endsWith("/");
