import {
  type CompiledRules,
  FILTERED,
  isCardNumber,
  RULE,
  sensitiveKeyRule,
  sensitiveValueRule,
  substitutePatterns,
} from "./rules.js";

/** A project's data-scrubbing settings, in Sentry's names (docs/data-scrubbing.md). */
export interface ScrubbingSettings {
  /** Scrub at all (Sentry's `dataScrubber`). */
  readonly dataScrubber: boolean;
  /** With `dataScrubber`: the default rules too — sensitive words, card numbers, keys (`dataScrubberDefaults`). */
  readonly dataScrubberDefaults: boolean;
  /** Remove the user's and the request's IP addresses (`scrubIPAddresses`), whether or not `dataScrubber` is on. */
  readonly scrubIPAddresses: boolean;
  /** With `dataScrubber`: more words; a key or a string value containing one is scrubbed. */
  readonly sensitiveFields: readonly string[];
  /** Keys never scrubbed by `dataScrubber`, nor anything below them. */
  readonly safeFields: readonly string[];
}

/** One `_meta` remark, as Sentry records it: `[rule, "s", start, end]` (substituted) or `[rule, "x"]` (removed). */
type Remark = [string, "s", number, number] | [string, "x"];
interface MetaTree {
  [key: string]: MetaTree | { rem: Remark[]; len?: number };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Fields that identify, time or group an event, never a secret: left alone, so that scrubbing
 * never changes an event id, a release or a fingerprint (Relay does not scrub them either).
 */
const STRUCTURAL_TOP = new Set([
  "_meta",
  "event_id",
  "timestamp",
  "start_timestamp",
  "received",
  "platform",
  "level",
  "logger",
  "release",
  "dist",
  "environment",
  "server_name",
  "transaction",
  "culprit",
  "type",
  "fingerprint",
  "modules",
  "sdk",
  "debug_meta",
  "version",
]);
/** A stack frame's code location (its `vars` and source lines are scrubbed). */
const STRUCTURAL_IN_FRAME = new Set([
  "filename",
  "abs_path",
  "function",
  "raw_function",
  "module",
  "package",
  "platform",
  "lineno",
  "colno",
  "in_app",
  "instruction_addr",
  "symbol_addr",
  "image_addr",
]);
/** Of an exception, a thread or a breadcrumb (the items of a `values` list): what names and times it. */
const STRUCTURAL_IN_VALUES = new Set([
  "type",
  "module",
  "mechanism",
  "thread_id",
  "category",
  "level",
  "timestamp",
  "event_id",
  "id",
  "crashed",
  "current",
]);

/** Where an object's keys are structural, by the key of the list holding it. */
function structuralOf(listKey: string): ReadonlySet<string> | null {
  if (listKey === "frames") return STRUCTURAL_IN_FRAME;
  if (listKey === "values" || listKey === "breadcrumbs") return STRUCTURAL_IN_VALUES;
  return null;
}

/** The fields `scrubIPAddresses` removes, as Relay does (`$user.ip_address`, `$http.env.REMOTE_ADDR`, `$sdk.client_ip`). */
const IP_FIELDS: ReadonlyArray<readonly string[]> = [
  ["user", "ip_address"],
  ["request", "env", "REMOTE_ADDR"],
  ["sdk", "client_ip"],
];

const compiled = new WeakMap<ScrubbingSettings, CompiledRules>();
function compile(settings: ScrubbingSettings): CompiledRules {
  let rules = compiled.get(settings);
  if (!rules) {
    rules = {
      defaults: settings.dataScrubberDefaults,
      sensitive: settings.sensitiveFields.map((field) => field.toLowerCase()).filter((field) => field !== ""),
      safe: new Set(settings.safeFields.map((field) => field.toLowerCase())),
    };
    compiled.set(settings, rules);
  }
  return rules;
}

/** How deep the walk goes: past the 32 levels events keep once normalised, with room to spare. */
const MAX_WALK_DEPTH = 64;

/** One scrubbing pass: the rules, where the walk is, and the remarks so far. */
class Pass {
  readonly path: string[] = [];
  meta: MetaTree | null = null;

  constructor(readonly rules: CompiledRules) {}

  /** Records a remark at the current path (`_meta` mirrors the event; list indexes are keys). */
  remark(entry: { rem: Remark[]; len?: number }, extra: readonly string[] = []): void {
    let node: MetaTree = (this.meta ??= {});
    for (const key of [...this.path, ...extra]) node = (node[key] ??= {}) as MetaTree;
    node[""] = entry;
  }

  /** The value under `key` (null: a list item), scrubbed; the same value when nothing matched. */
  value(value: unknown, key: string | null): unknown {
    // Below this depth the event is cut anyway (normalisation keeps 32 levels: docs/issues.md, "Repairing events, never losing them"), and
    // a hostile 10,000-level value must not exhaust the stack of a recursive walk.
    if (this.path.length > MAX_WALK_DEPTH) return value;
    if (key !== null && this.rules.safe.size > 0 && this.rules.safe.has(key.toLowerCase())) return value;
    const keyRule = key === null ? null : sensitiveKeyRule(key, this.rules);
    if (typeof value === "string") return this.#string(value, keyRule);
    if (typeof value === "number" || typeof value === "boolean" || Array.isArray(value)) {
      const rule =
        keyRule ?? (typeof value === "number" && this.rules.defaults && isCardNumber(value) ? RULE.creditCard : null);
      if (rule !== null) return this.#filtered(rule);
      return Array.isArray(value) ? this.#list(value, key ?? "") : value;
    }
    // Sentry scrubs the entries of an object under a sensitive key one by one, never the object whole.
    if (isObject(value)) return this.object(value, null);
    return value;
  }

  object(object: Json, structural: ReadonlySet<string> | null): Json {
    let copy: Json | null = null;
    for (const key in object) {
      const child = object[key];
      if (structural?.has(key) || child === null || child === undefined) continue;
      this.path.push(key);
      const scrubbed = this.value(child, key);
      this.path.pop();
      if (scrubbed !== child) (copy ??= { ...object })[key] = scrubbed;
    }
    return copy ?? object;
  }

  /** A list; a list of `[key, value]` pairs (headers, tags, cookies) is scrubbed as an object. */
  #list(list: unknown[], listKey: string): unknown[] {
    const pairs =
      list.length > 0 && list.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string");
    const structural = structuralOf(listKey);
    let copy: unknown[] | null = null;
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      this.path.push(String(index));
      let scrubbed: unknown;
      if (pairs) {
        const [pairKey, pairValue] = item as [string, unknown];
        this.path.push("1");
        const value = this.value(pairValue, pairKey);
        this.path.pop();
        scrubbed = value === pairValue ? item : [pairKey, value];
      } else {
        scrubbed = isObject(item) ? this.object(item, structural) : this.value(item, null);
      }
      this.path.pop();
      if (scrubbed !== item) (copy ??= list.slice())[index] = scrubbed;
    }
    return copy ?? list;
  }

  #string(value: string, keyRule: string | null): string {
    const wholeRule = keyRule ?? sensitiveValueRule(value, this.rules);
    if (wholeRule !== null) return this.#filtered(wholeRule, value.length);
    if (!this.rules.defaults) return value;
    const patterns = substitutePatterns(value);
    if (patterns === null) return value;
    const rem = patterns.substitutions.map(({ rule, start, end }): Remark => [rule, "s", start, end]);
    this.remark({ rem, len: value.length });
    return patterns.text;
  }

  #filtered(rule: string, length?: number): string {
    this.remark(
      length === undefined
        ? { rem: [[rule, "s", 0, FILTERED.length]] }
        : { rem: [[rule, "s", 0, FILTERED.length]], len: length },
    );
    return FILTERED;
  }
}

/** The event without the IP addresses `scrubIPAddresses` removes (null, remarked as removed). */
function withoutIps(event: Json, pass: Pass): Json {
  let copy: Json | null = null;
  for (const path of IP_FIELDS) {
    const parents: Json[] = [];
    let node: unknown = copy ?? event;
    for (const key of path.slice(0, -1)) {
      if (!isObject(node)) break;
      parents.push(node);
      node = node[key];
    }
    const last = path[path.length - 1]!;
    if (parents.length !== path.length - 1 || !isObject(node) || node[last] == null) continue;
    copy ??= { ...event };
    let target: Json = copy;
    for (const key of path.slice(0, -1)) target = target[key] = { ...(target[key] as Json) };
    target[last] = null;
    pass.remark({ rem: [[RULE.removeIp, "x"]] }, path);
  }
  return copy ?? event;
}

/** `_meta` with the pass's remarks merged into what the SDK sent (ours win where both have one). */
function mergeMeta(sent: unknown, ours: MetaTree): unknown {
  if (!isObject(sent)) return ours;
  const merged: Json = { ...sent };
  for (const [key, value] of Object.entries(ours))
    merged[key] = key === "" ? value : mergeMeta(sent[key], value as MetaTree);
  return merged;
}

/**
 * Sentry's server-side data scrubbing of one event (docs/data-scrubbing.md): values under
 * sensitive keys, strings naming a secret, card numbers, private keys, URL passwords and US SSNs
 * become `[Filtered]`, the IP addresses are removed when asked, and each change is remarked in
 * `_meta` as Sentry records it. Pure (no I/O): it may run wherever the accept path runs. The
 * same object comes back, with `changed: false`, when nothing matched.
 */
export function scrubEvent(event: unknown, settings: ScrubbingSettings): { event: unknown; changed: boolean } {
  if (!isObject(event) || (!settings.dataScrubber && !settings.scrubIPAddresses)) return { event, changed: false };
  const pass = new Pass(compile(settings));
  let scrubbed = settings.dataScrubber ? pass.object(event, STRUCTURAL_TOP) : event;
  if (settings.scrubIPAddresses) scrubbed = withoutIps(scrubbed, pass);
  if (pass.meta === null) return { event, changed: false };
  return { event: { ...scrubbed, _meta: mergeMeta(event._meta, pass.meta) }, changed: true };
}
