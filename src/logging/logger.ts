/**
 * The logger Faultline writes to. Any pino-compatible logger fits (pino, or a pino child):
 * each method takes either a message, or an object of fields followed by a message.
 */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

type Level = "debug" | "info" | "warn" | "error";

function writeLine(level: Level, obj: object | string, msg?: string): void {
  const fields = typeof obj === "string" ? {} : obj;
  const text = typeof obj === "string" ? obj : (msg ?? "");
  const line = { level, time: new Date().toISOString(), name: "faultline", msg: text, ...serializable(fields) };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** Error objects do not survive JSON.stringify; keep their message and stack. */
function serializable(fields: object): object {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { message: value.message, stack: value.stack } : value;
  }
  return out;
}

/** The default logger: warnings and errors to stderr as JSON lines, nothing else. */
export function createDefaultLogger(): Logger {
  const ignore = () => {};
  return {
    debug: ignore,
    info: ignore,
    warn: (obj, msg) => writeLine("warn", obj, msg),
    error: (obj, msg) => writeLine("error", obj, msg),
  };
}

/** A logger that drops everything (tests, CLI quiet mode). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
