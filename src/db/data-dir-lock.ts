import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, join } from "node:path";

/**
 * The lock file of an embedded data directory, as PostgreSQL's `postmaster.pid`: PGlite has no
 * lock of its own, and two processes with one directory open each write its files as if they were
 * alone (one of them never sees the other's writes, and the cluster can be corrupted).
 */
export const LOCK_FILE_NAME = "faultline.pid";

/** Who holds a data directory: what the lock file records. */
export interface DataDirHolder {
  pid: number;
  hostname: string;
  /** ISO time the directory was opened. */
  startedAt: string;
  /** The holder's command line (`node server.js`), for the message a second process gets. */
  command: string;
  /** Tells two holders with one pid apart (a pid reused after a crash). */
  nonce: string;
}

/** Opening an embedded data directory that another process (or another instance in this one) has open. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder,
    readonly lockFile: string,
  ) {
    super(lockedMessage(dataDir, holder, lockFile));
    this.name = "DataDirLockedError";
  }
}

function lockedMessage(dataDir: string, holder: DataDirHolder, lockFile: string): string {
  if (holder.pid === 0)
    return `Faultline's embedded data directory ${dataDir} has a lock file it cannot read (${lockFile}): if no process uses the directory, delete that file`;
  const sameHost = holder.hostname === hostname();
  const who =
    holder.pid === process.pid && sameHost
      ? "this process already (another Faultline instance on the same directory)"
      : `process ${holder.pid} (${holder.command})${sameHost ? "" : ` on host ${holder.hostname}`}`;
  const stale = sameHost ? "" : `; if that host no longer runs it, delete ${lockFile}`;
  return (
    `Faultline's embedded data directory ${dataDir} is open in ${who} since ${holder.startedAt}: ` +
    `a PGlite data directory is used by one process at a time. Stop that process, or use a PostgreSQL database to share data between processes${stale}`
  );
}

/** A held lock: released by the instance's close(), and (best effort) when the process exits. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/**
 * Takes the lock of `dataDir` (which must exist), or throws a {@link DataDirLockedError} naming
 * the holder. A lock left by a process that is gone (its pid no longer alive on this host: a
 * crash, SIGKILL) is taken over. The file appears with its whole content at once (written aside,
 * then hard-linked into place, which fails if it exists), so a reader never sees it half written.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE_NAME);
  const mine: DataDirHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: commandLine(),
    nonce: randomBytes(8).toString("hex"),
  };
  const content = `${JSON.stringify(mine)}\n`;
  // Two attempts: the second after removing a stale lock. Another process taking over the same
  // stale lock at the same moment makes our second link fail, and we report that process.
  for (let attempt = 0; !tryCreate(file, content); attempt++) {
    const holder = readHolder(file);
    // Gone between our link and our read (its holder closed): try again, a few times at most.
    if (holder === undefined && attempt < 5) continue;
    if (holder === undefined || attempt > 0 || isAlive(holder))
      throw new DataDirLockedError(dataDir, holder ?? UNKNOWN_HOLDER, file);
    removeIfStill(file, holder);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    // Only our own lock: never one another process took over after we lost ours.
    if (readHolder(file)?.nonce === mine.nonce) removeIfStill(file, mine);
  };
  // Best effort for a host that exits without close(): `exit` listeners run on process.exit()
  // and a normal end, not on a signal's default action or SIGKILL (those leave a stale lock,
  // which the next open takes over).
  process.on("exit", release);
  return { file, release };
}

function tryCreate(file: string, content: string): boolean {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(aside, content, { mode: 0o600 });
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(aside);
  }
}

/** The lock file's holder; undefined when there is no file. An unreadable one is reported as held by an unknown process rather than taken over. */
function readHolder(file: string): DataDirHolder | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DataDirHolder>;
    if (typeof parsed.pid === "number" && typeof parsed.hostname === "string") {
      return {
        pid: parsed.pid,
        hostname: parsed.hostname,
        startedAt: String(parsed.startedAt ?? "an unknown time"),
        command: String(parsed.command ?? "unknown command"),
        nonce: String(parsed.nonce ?? ""),
      };
    }
  } catch {
    // not ours, or damaged: fall through
  }
  return UNKNOWN_HOLDER;
}

/** A lock file that is not Faultline's or is damaged: never taken over (pid 0 is never alive-checked). */
const UNKNOWN_HOLDER: DataDirHolder = { pid: 0, hostname: "", startedAt: "", command: "", nonce: "" };

/** Whether the holder may still run. A process on another host cannot be checked, so it counts as alive. */
function isAlive(holder: DataDirHolder): boolean {
  if (holder.pid === 0 || holder.hostname !== hostname()) return true;
  if (holder.pid === process.pid) return true; // another instance in this process: not stale
  try {
    process.kill(holder.pid, 0); // signal 0: only checks that the process exists
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the lock file if it still holds `holder` (not a lock someone took meanwhile). */
function removeIfStill(file: string, holder: DataDirHolder): void {
  const current = readHolder(file);
  if (current === undefined || current.nonce !== holder.nonce || current.pid !== holder.pid) return;
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** `node server.js --port 3000`: the executable's name and the arguments, bounded. */
function commandLine(): string {
  const [executable, ...args] = process.argv;
  const text = [basename(executable ?? "node"), ...args].join(" ");
  return text.length > 200 ? `${text.slice(0, 197)}…` : text;
}
