import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeEvent } from "../../src/plugins/event-store/grouping/index.js";
import {
  applyGroupingRules,
  formatFingerprintRule,
  formatStackTraceRule,
  type GroupingRules,
  parseFingerprintRule,
  parseFingerprintRules,
  parseStackTraceRule,
  parseStackTraceRules,
} from "../../src/plugins/event-store/grouping/rules/index.js";

const receivedAt = new Date("2026-11-22T10:33:30.000Z");

type Frame = Record<string, unknown>;
const frame = (module: string, fn: string, extra: Frame = {}): Frame => ({
  module,
  function: fn,
  in_app: true,
  ...extra,
});

function errorEvent(type: string, value: string, frames: Frame[], extra: Record<string, unknown> = {}) {
  return { platform: "python", exception: { values: [{ type, value, stacktrace: { frames } }] }, ...extra };
}

function grouped(raw: Record<string, unknown>, fingerprinting: string, stackTrace = "") {
  const rules: GroupingRules = {
    fingerprinting: parseFingerprintRules(fingerprinting).rules,
    stackTrace: parseStackTraceRules(stackTrace).rules,
  };
  return applyGroupingRules(normalizeEvent(raw, { receivedAt }), rules);
}

/** The rule without its compiled globs (derived from the values, which are compared). */
const shape = (rule: object) => JSON.parse(JSON.stringify(rule, (key, value) => (key === "glob" ? undefined : value)));

describe("fingerprint rule syntax", () => {
  it("reads matchers (aliases to their long names, quotes, negation) and the fingerprint with a title", () => {
    const rule = parseFingerprintRule(
      'type:DatabaseUnavailable !message:"*read only*" tags.server:db-* -> system-down, {{transaction}} title="DB: {{ error.value }}"',
    );
    expect(shape(rule)).toEqual({
      matchers: [
        { field: "error.type", tag: null, value: "DatabaseUnavailable", negated: false },
        { field: "message", tag: null, value: "*read only*", negated: true },
        { field: "tags", tag: "server", value: "db-*", negated: false },
      ],
      fingerprint: ["system-down", "{{ transaction }}"],
      title: "DB: {{ error.value }}",
    });
    expect(formatFingerprintRule(rule)).toBe(
      'error.type:DatabaseUnavailable !message:"*read only*" tags.server:db-* -> system-down, {{ transaction }} title="DB: {{ error.value }}"',
    );
  });

  it("names every bad line, and skips comments and blank lines", () => {
    const text = [
      "# comment",
      "",
      "error.type:A -> a # trailing comment",
      "colour:red -> x",
      "error.type:B ->",
      "error.type:C -> {{ nope }}",
      "error.type:D -> pre{{ default }}",
      'message:"unclosed -> x',
      "error.type:E -> x colour=red",
      "stack.function:f -> x",
    ].join("\n");
    const { rules, errors } = parseFingerprintRules(text);
    expect(rules.map((rule) => rule.fingerprint)).toEqual([["a"], ["x"]]);
    expect(errors).toEqual([
      'line 4: unknown matcher "colour" (in "colour:red -> x")',
      'line 5: a rule needs a fingerprint after -> (in "error.type:B ->")',
      'line 6: unknown variable "{{ nope }}" in the fingerprint (in "error.type:C -> {{ nope }}")',
      'line 7: {{ default }} must be a fingerprint part of its own (in "error.type:D -> pre{{ default }}")',
      'line 8: expected matchers -> fingerprint (in "message:"unclosed -> x")',
      'line 9: unknown attribute "colour" (only title) (in "error.type:E -> x colour=red")',
    ]);
  });

  it("reads stack trace rules and refuses unknown actions and matchers that do not apply to frames", () => {
    expect(shape(parseStackTraceRule("stack.module:vendor/* -app -group"))).toEqual({
      matchers: [{ field: "stack.module", tag: null, value: "vendor/*", negated: false }],
      actions: ["-app", "-group"],
    });
    expect(parseStackTraceRules("function:a ^-group\nmessage:x -group\n-app function:b\nfunction:c").errors).toEqual([
      'line 1: unknown or unsupported action "^-group" (use +app, -app, +group or -group) (in "function:a ^-group")',
      'line 2: matcher "message" cannot be used in these rules (in "message:x -group")',
      'line 3: matcher "function:b" after an action: matchers come first (in "-app function:b")',
      'line 4: a rule needs an action (+app, -app, +group, -group) (in "function:c")',
    ]);
  });

  const tagKey = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,8}$/);
  // Any text on one line: quotes, backslashes, spaces, `#`, `->`, `{{`, globs and non-ASCII included.
  const value = fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }).filter((text) => !/[\r\n]/.test(text));
  const field = fc.constantFrom(
    "error.type",
    "error.value",
    "message",
    "logger",
    "level",
    "stack.module",
    "stack.function",
    "stack.abs_path",
    "stack.package",
    "sdk",
    "release",
  );
  const matcher = fc.oneof(
    fc.record({ key: field, value, negated: fc.boolean() }),
    fc.record({ key: tagKey.map((key) => `tags.${key}`), value, negated: fc.boolean() }),
    fc.record({ key: fc.constant("app"), value: fc.constantFrom("yes", "no"), negated: fc.boolean() }),
    fc.record({
      key: fc.constant("family"),
      value: fc.constantFrom("native", "javascript,other"),
      negated: fc.boolean(),
    }),
  );
  const part = fc.oneof(
    value.filter((text) => !text.includes("{{") && !text.includes("}}")),
    fc.constantFrom("{{ default }}", "{{ transaction }}", "{{ tags.url }}"),
  );
  const quoted = (text: string) => `"${text.replace(/["\\]/g, "\\$&")}"`;

  it("parse(format(rule)) gives the rule back (fingerprint rules)", () => {
    fc.assert(
      fc.property(
        fc.array(matcher, { minLength: 1, maxLength: 3 }),
        fc.array(part, { minLength: 1, maxLength: 3 }),
        fc.option(value.filter((text) => !text.includes("{{") && !text.includes("}}"))),
        (matchers, parts, title) => {
          const text = `${matchers.map((m) => `${m.negated ? "!" : ""}${m.key}:${quoted(m.value)}`).join(" ")} -> ${parts
            .map(quoted)
            .join(", ")}${title === null ? "" : ` title=${quoted(title)}`}`;
          const rule = parseFingerprintRule(text);
          expect(rule.fingerprint).toEqual(parts);
          expect(rule.title).toBe(title);
          expect(rule.matchers.map((m) => m.value)).toEqual(matchers.map((m) => m.value));
          expect(shape(parseFingerprintRule(formatFingerprintRule(rule)))).toEqual(shape(rule));
        },
      ),
    );
  });

  it("parse(format(rule)) gives the rule back (stack trace rules)", () => {
    const frameMatcher = fc.record({
      key: fc.constantFrom("stack.module", "stack.function", "stack.abs_path", "stack.package"),
      value,
      negated: fc.boolean(),
    });
    const action = fc.constantFrom("+app", "-app", "+group", "-group");
    fc.assert(
      fc.property(
        fc.array(frameMatcher, { minLength: 1, maxLength: 3 }),
        fc.array(action, { minLength: 1, maxLength: 2 }),
        (matchers, actions) => {
          const rule = parseStackTraceRule(
            `${matchers.map((m) => `${m.negated ? "!" : ""}${m.key}:${quoted(m.value)}`).join(" ")} ${actions.join(" ")}`,
          );
          expect(rule.actions).toEqual(actions);
          expect(shape(parseStackTraceRule(formatStackTraceRule(rule)))).toEqual(shape(rule));
        },
      ),
    );
  });
});

describe("fingerprint rule matching", () => {
  const rules = [
    "error.type:DatabaseUnavailable -> system-down",
    'message:"*timeout*" -> timeouts, {{ transaction }}',
    "logger:payments.* level:warn* -> payments, {{ logger }}",
    "tags.region:eu-* !app:yes -> eu-library",
    'stack.abs_path:**/billing/*.py stack.function:charge -> billing-charge title="Charge failed: {{ error.value }}"',
    "family:javascript error.type:Type* -> js, {{ default }}",
  ].join("\n");

  it("the first matching rule gives the fingerprint; different values group together", () => {
    const one = grouped(errorEvent("DatabaseUnavailable", "host a down", [frame("app.db", "connect")]), rules);
    const two = grouped(errorEvent("DatabaseUnavailable", "host b down", [frame("app.other", "query")]), rules);
    expect(one.hashes).toEqual(two.hashes);
    expect(one.payload.fingerprint).toEqual(["system-down"]);
    expect(one.payload._fingerprint_info).toEqual({
      matched_rule: {
        text: "error.type:DatabaseUnavailable -> system-down",
        matchers: [["error.type", "DatabaseUnavailable"]],
        fingerprint: ["system-down"],
        attributes: {},
        is_builtin: false,
      },
    });
  });

  it("resolves variables, so {{ transaction }} splits what the rule joins", () => {
    const message = (transaction: string, text: string) =>
      grouped({ message: text, transaction, level: "error" }, rules);
    const a1 = message("/checkout", "Upstream TIMEOUT after 30s");
    const a2 = message("/checkout", "db timeout after 5s");
    const b = message("/search", "db timeout after 5s");
    expect(a1.hashes).toEqual(a2.hashes);
    expect(b.hashes).not.toEqual(a1.hashes);
    expect(b.payload.fingerprint).toEqual(["timeouts", "/search"]);
    expect(grouped({ message: "no match", level: "error" }, rules).payload._fingerprint_info).toBeUndefined();
  });

  it("matches logger and level globs case-insensitively, tags, negations and frames of one frame", () => {
    const warning = grouped({ message: "m", logger: "Payments.Stripe", level: "warning" }, rules);
    expect(warning.payload.fingerprint).toEqual(["payments", "Payments.Stripe"]);
    const library = errorEvent("E", "v", [frame("lib", "f", { in_app: false })], { tags: { region: "eu-west" } });
    expect(grouped(library, rules).payload.fingerprint).toEqual(["eu-library"]);
    const app = errorEvent("E", "v", [frame("app", "f")], { tags: { region: "eu-west" } });
    expect(grouped(app, rules).payload.fingerprint).toBeUndefined();
    // Path and function must hold on the same frame.
    const billing = (frames: Frame[]) => grouped(errorEvent("E", "card declined", frames), rules);
    const same = billing([{ abs_path: "C:\\srv\\billing\\api.py", function: "charge" }]);
    expect(same.payload.fingerprint).toEqual(["billing-charge"]);
    expect(same.title).toBe("Charge failed: card declined");
    const split = billing([
      { abs_path: "/srv/billing/api.py", function: "other" },
      { abs_path: "/srv/x.py", function: "charge" },
    ]);
    expect(split.payload.fingerprint).toBeUndefined();
  });

  it("overrides the SDK's fingerprint and records it; {{ default }} keeps the default grouping in", () => {
    const sent = errorEvent("DatabaseUnavailable", "x", [], { fingerprint: ["client"] });
    expect(grouped(sent, rules).payload._fingerprint_info).toMatchObject({ client_fingerprint: ["client"] });
    const js = (fn: string) => grouped({ ...errorEvent("TypeError", "x", [frame("m", fn)]), platform: "node" }, rules);
    expect(js("a").payload.fingerprint).toEqual(["js", "{{ default }}"]);
    expect(js("a").hashes).not.toEqual(js("b").hashes);
  });
});

describe("stack trace rules", () => {
  it("-group leaves frames out of grouping; -app flips in_app and keeps the SDK's value", () => {
    const frames = (assertion: string) => [frame("app.main", "main"), frame("app.checks", assertion)];
    const a = grouped(errorEvent("AssertionError", "x", frames("assertEqual")), "", "stack.function:assert* -group");
    const b = grouped(errorEvent("AssertionError", "x", frames("assertTrue")), "", "stack.function:assert* -group");
    const plain = normalizeEvent(errorEvent("AssertionError", "x", frames("assertTrue")), { receivedAt });
    expect(a.hashes).toEqual(b.hashes);
    expect(b.hashes).not.toEqual(plain.hashes);
    // A later rule wins: +group brings the frame back.
    const back = grouped(
      errorEvent("AssertionError", "x", frames("assertTrue")),
      "",
      "function:assert* -group\nfunction:assertTrue +group",
    );
    expect(back.hashes).toEqual(plain.hashes);

    const vendor = grouped(
      errorEvent("E", "v", [frame("app.main", "main"), frame("vendor/payments", "pay")]),
      "",
      "stack.module:vendor/* -app",
    );
    const stored = vendor.payload.exception as { values: Array<{ stacktrace: { frames: Frame[] } }> };
    expect(stored.values[0]!.stacktrace.frames[1]).toMatchObject({ in_app: false, data: { orig_in_app: true } });
    expect(stored.values[0]!.stacktrace.frames[0]).toEqual(frame("app.main", "main"));
    // The culprit is derived again from the in-app frames that are left.
    expect(vendor.culprit).toBe("app.main in main");
  });
});
