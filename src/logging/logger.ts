/**
 * The logger Faultline writes to. A pino logger (or a pino child) fits as it is:
 * `createFaultline({ logger: pino() })`; so does any object with these four methods. Each takes
 * pino's arguments as Faultline uses them: an object of fields and a message (`(obj, msg)`), or a
 * message alone (`(msg)`). `child` is optional: without it, Faultline adds the fields it binds
 * (the request id) to each line itself.
 */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  /** A logger that adds `bindings` to every line (pino's `child`). */
  child?(bindings: Record<string, unknown>): Logger;
}

type Level = "debug" | "info" | "warn" | "error";
const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];

function writeLine(level: Level, bindings: object, obj: object | string, msg?: string): void {
  const fields = typeof obj === "string" ? {} : obj;
  const text = typeof obj === "string" ? obj : (msg ?? "");
  const line = {
    level,
    time: new Date().toISOString(),
    name: "faultline",
    msg: text,
    ...serializable(bindings),
    ...serializable(fields),
  };
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
export function createDefaultLogger(bindings: Record<string, unknown> = {}): Logger {
  const ignore = () => {};
  return {
    debug: ignore,
    info: ignore,
    warn: (obj: object | string, msg?: string) => writeLine("warn", bindings, obj, msg),
    error: (obj: object | string, msg?: string) => writeLine("error", bindings, obj, msg),
    child: (more) => createDefaultLogger({ ...bindings, ...more }),
  };
}

/**
 * Where a Faultline handler keeps its instance's logger (a registered symbol: adapters and core
 * may be bundled apart), for what an adapter logs outside the pipeline.
 */
export const HANDLER_LOGGER = Symbol.for("faultline.handlerLogger");

/** A logger that drops everything (tests, CLI quiet mode). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };

/**
 * `logger.child(bindings)`, or for a logger without `child`, one that merges `bindings` into the
 * fields of each line (a message alone gets them as its fields).
 */
export function childLogger(logger: Logger, bindings: Record<string, unknown>): Logger {
  if (typeof logger.child === "function") return logger.child(bindings);
  const bound: Partial<Logger> = {};
  for (const level of LEVELS) {
    bound[level] = (obj: object | string, msg?: string) =>
      typeof obj === "string" ? logger[level](bindings, obj) : emit(logger, level, { ...bindings, ...obj }, msg);
  }
  bound.child = (more) => childLogger(logger, { ...bindings, ...more });
  return bound as Logger;
}

/**
 * The logger of one request: `childLogger(base, { requestId })`, made on its first line only, so a
 * request that logs nothing (nearly all of them) costs one small object and no `child()` call.
 */
export class RequestLogger implements Logger {
  #child: Logger | undefined;

  constructor(
    private readonly base: Logger,
    private readonly requestId: string,
  ) {}

  debug(obj: object | string, msg?: string): void {
    emit(this.#logger(), "debug", obj, msg);
  }

  info(obj: object | string, msg?: string): void {
    emit(this.#logger(), "info", obj, msg);
  }

  warn(obj: object | string, msg?: string): void {
    emit(this.#logger(), "warn", obj, msg);
  }

  error(obj: object | string, msg?: string): void {
    emit(this.#logger(), "error", obj, msg);
  }

  child(bindings: Record<string, unknown>): Logger {
    return childLogger(this.#logger(), bindings);
  }

  #logger(): Logger {
    return (this.#child ??= childLogger(this.base, { requestId: this.requestId }));
  }
}

/** Passes on exactly the arguments given: pino reads a second argument as an interpolation value, even `undefined`. */
function emit(logger: Logger, level: Level, obj: object | string, msg: string | undefined): void {
  if (msg === undefined) logger[level](obj);
  else logger[level](obj, msg);
}
