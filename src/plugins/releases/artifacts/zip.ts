import { Unzip, UnzipInflate, unzipSync } from "fflate";

export interface ZipLimits {
  maxEntries: number;
  maxBytes: number;
}

/**
 * Archive bytes handed to the streaming reader at a time. A DEFLATE stream expands at most ~1032×,
 * so one step inflates at most ~16 MB before the size checks below see it and stop the reading.
 */
const SLICE_BYTES = 16 * 1024;

/**
 * Reads the ZIP archives sentry-cli builds for artifact bundles (stored or deflated entries) into
 * file name → contents; directories are left out. Throws on anything else, and on bundles over
 * the limits; the caller turns that into the bundle's `error` state.
 *
 * Two passes, both fflate: the central directory is checked first with nothing inflated (entry
 * count, declared sizes, compression methods); then the entries are streamed and each one stops
 * with an error as soon as it inflates past the size the central directory declared for it.
 * fflate's `unzipSync` alone is not enough there: it keeps an entry's output to the declared size
 * but still decodes the whole DEFLATE stream, so a lying entry costs CPU for its real size
 * (seconds per MB of archive), where this stops after at most one slice.
 */
export function readZip(archive: Uint8Array, limits: ZipLimits): Map<string, Buffer> {
  const declaredSizes = readCentralDirectory(archive, limits);
  return inflateEntries(archive, declaredSizes, limits);
}

/** Each file's declared size from the central directory, after checking the limits; inflates nothing. */
function readCentralDirectory(archive: Uint8Array, limits: ZipLimits): Map<string, number> {
  const declaredSizes = new Map<string, number>();
  let count = 0;
  let total = 0;
  unzipSync(archive, {
    filter: ({ name, originalSize, compression }) => {
      // Thrown from the filter, before fflate walks the rest of a directory that may claim billions of entries.
      if (++count > limits.maxEntries) throw tooManyEntries(limits);
      if (isDirectory(name)) return false;
      if (compression !== 0 && compression !== 8) throw new Error(`unsupported ZIP compression method ${compression} for ${name}`);
      total += originalSize;
      if (total > limits.maxBytes) throw new Error(`the bundle unpacks to more than ${limits.maxBytes} bytes`);
      declaredSizes.set(name, originalSize);
      return false;
    },
  });
  return declaredSizes;
}

/** Streams the entries the central directory lists, none past its declared size, so none past `maxBytes` in all. */
function inflateEntries(archive: Uint8Array, declaredSizes: Map<string, number>, limits: ZipLimits): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let failure: Error | undefined;
  let count = 0;
  const unzip = new Unzip((file) => {
    const declared = declaredSizes.get(file.name);
    // Local headers the central directory does not list (directories, leftovers) are not read.
    if (declared === undefined) return;
    // Local headers can repeat a listed name any number of times.
    if (++count > limits.maxEntries) {
      failure ??= tooManyEntries(limits);
      return;
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        failure = error;
        return;
      }
      size += data.byteLength;
      if (size > declared) {
        failure = new Error(`${file.name} inflates to more than the ${declared} bytes its header declares`);
        return;
      }
      parts.push(data);
      if (final) entries.set(file.name, Buffer.concat(parts));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  for (let at = 0; at < archive.byteLength && !failure; at += SLICE_BYTES) {
    unzip.push(archive.subarray(at, at + SLICE_BYTES), at + SLICE_BYTES >= archive.byteLength);
  }
  if (failure) throw failure;
  return entries;
}

const isDirectory = (name: string): boolean => name.endsWith("/");

const tooManyEntries = (limits: ZipLimits): Error => new Error(`the bundle has more than ${limits.maxEntries} files; at most ${limits.maxEntries} are accepted`);
