import { inflateRawSync } from "node:zlib";

/**
 * A minimal reader of the ZIP archives sentry-cli builds for artifact bundles (stored or deflated
 * entries, no ZIP64, no encryption): the central directory gives each entry's name and offset.
 * Throws on anything else; the caller turns that into the bundle's `error` state.
 */
export function readZip(archive: Uint8Array, limits: { maxEntries: number; maxBytes: number }): Map<string, Buffer> {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const eocd = findEndOfCentralDirectory(buf);
  const count = buf.readUInt16LE(eocd + 10);
  const directoryOffset = buf.readUInt32LE(eocd + 16);
  if (count > limits.maxEntries) throw new Error(`the bundle has ${count} files; at most ${limits.maxEntries} are accepted`);
  const entries = new Map<string, Buffer>();
  let total = 0;
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error("corrupt ZIP central directory");
    const method = buf.readUInt16LE(at + 10);
    const compressedSize = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const localOffset = buf.readUInt32LE(at + 42);
    const name = buf.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    total += size;
    if (total > limits.maxBytes) throw new Error(`the bundle unpacks to more than ${limits.maxBytes} bytes`);
    if (buf.readUInt32LE(localOffset) !== 0x04034b50) throw new Error("corrupt ZIP local header");
    const dataStart = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    const raw = buf.subarray(dataStart, dataStart + compressedSize);
    if (method === 0) entries.set(name, Buffer.from(raw));
    else if (method === 8) entries.set(name, inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) }));
    else throw new Error(`unsupported ZIP compression method ${method} for ${name}`);
  }
  return entries;
}

function findEndOfCentralDirectory(buf: Buffer): number {
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new Error("not a ZIP archive");
}
