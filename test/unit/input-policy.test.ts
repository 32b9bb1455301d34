import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.js";
import {
  checkJsonBody,
  checkPathParams,
  checkQuery,
  checkUrlLength,
  findJsonProblem,
  repairText,
  textProblem,
} from "../../src/http/input-policy.js";
import { EVENT_SANITIZE_LIMITS, sanitizeEventPayload } from "../../src/plugins/event-store/grouping/sanitize.js";
import {
  FilterSyntaxError,
  MAX_FILTER_DEPTH,
  MAX_FILTER_TERMS,
  parseFilter,
  parsePatchPath,
} from "../../src/plugins/scim/resources/filter.js";
import { hostileJson, hostileString, nested } from "../helpers/hostile-json.js";

/** Whether text is what PostgreSQL stores as is: no NUL, every surrogate paired (checked code unit by code unit). */
function storable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return false;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i += 1;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false;
  }
  return true;
}

/** Every string and key of a value, and its depth (the value itself is level 1), recursively (test sizes only). */
function inspect(value: unknown, level = 1): { strings: string[]; depth: number } {
  if (typeof value === "string") return { strings: [value], depth: 0 };
  if (typeof value !== "object" || value === null) return { strings: [], depth: 0 };
  const entries = Array.isArray(value) ? value.map((item) => ["", item] as const) : Object.entries(value);
  const parts = entries.map(([key, item]) => {
    const inner = inspect(item, level + 1);
    return { strings: Array.isArray(value) ? inner.strings : [key, ...inner.strings], depth: inner.depth };
  });
  return { strings: parts.flatMap((part) => part.strings), depth: Math.max(level, ...parts.map((part) => part.depth)) };
}

const thrown = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected an ApiError");
};

describe("text checks", () => {
  it("names NULs and unpaired surrogates, and accepts surrogate pairs", () => {
    expect(textProblem("plain é 🚀")).toBeNull();
    expect(textProblem("a\u0000b")).toBe("a NUL character");
    expect(textProblem("\ud800")).toBe("an unpaired UTF-16 surrogate");
    expect(textProblem("x\udc00")).toBe("an unpaired UTF-16 surrogate");
    expect(textProblem("\udc00\ud800")).toBe("an unpaired UTF-16 surrogate");
    expect(textProblem("\ud83d")).toBe("an unpaired UTF-16 surrogate");
    expect(repairText("a\u0000b\ud800c\udc00🚀")).toBe("a\uFFFDb\uFFFDc\uFFFD🚀");
  });

  it("property: textProblem agrees with a code-unit scan; repairText makes any text storable, keeps its length and clean text as is", () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        expect(textProblem(text) === null).toBe(storable(text));
        const repaired = repairText(text);
        expect(storable(repaired)).toBe(true);
        expect(repaired.length).toBe(text.length);
        expect(repairText(repaired)).toBe(repaired);
        if (storable(text)) expect(repaired).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the API input policy", () => {
  it("414 past the URL limit, counting path and query", () => {
    expect(() => checkUrlLength(new URL(`http://h/a?${"q".repeat(100)}`), 200)).not.toThrow();
    const error = thrown(() => checkUrlLength(new URL(`http://h/a?${"q".repeat(300)}`), 200));
    expect(error.status).toBe(414);
    expect(error.detail).toBe("Request URI too long (303 characters; limit 200)");
  });

  it("400 naming the path parameter or query field", () => {
    expect(thrown(() => checkPathParams({ organization_id_or_slug: "acme", issue_id: "1\u0000" })).detail).toBe(
      "Invalid request: issue_id: contains a NUL character",
    );
    expect(thrown(() => checkQuery(new URLSearchParams("a=1&query=%00"))).extra).toEqual({
      errors: { query: ["contains a NUL character"] },
    });
    expect(thrown(() => checkQuery(new URLSearchParams("%00=1"))).detail).toBe(
      "Invalid request: \uFFFD: key contains a NUL character",
    );
  });

  it("400 naming the first bad body field in document order, keys included", () => {
    expect(findJsonProblem({ a: "ok", b: ["x", "y\u0000"], c: "\ud800" }, 32)).toEqual({
      "b.1": ["contains a NUL character"],
    });
    expect(findJsonProblem({ a: { "k\ud800": 1 } }, 32)).toEqual({
      "a.k\uFFFD": ["key contains an unpaired UTF-16 surrogate"],
    });
    expect(findJsonProblem("\u0000", 32)).toEqual({ body: ["contains a NUL character"] });
    expect(findJsonProblem({ a: [1, true, null, "🚀"] }, 32)).toBeNull();
    expect(thrown(() => checkJsonBody({ name: "\u0000" }, 32)).detail).toBe(
      "Invalid request: name: contains a NUL character",
    );
  });

  it("depth: the body is level 1; a limit of N allows N levels; 1,000,000 levels do not overflow the walk", () => {
    expect(findJsonProblem(nested(31, "array"), 32)).toBeNull();
    expect(findJsonProblem(nested(32, "array"), 32)).toBeNull();
    expect(findJsonProblem(nested(33, "object"), 32)).toEqual({
      [`a.a.a.a.a.a.a.a.a.a.a.….a`]: ["nested deeper than 32 levels"],
    });
    expect(Object.values(findJsonProblem(nested(1_000_000, "array"), 32) ?? {})).toEqual([
      ["nested deeper than 32 levels"],
    ]);
    // Long keys are cut in the reported path.
    expect(Object.keys(findJsonProblem({ ["k".repeat(500)]: "\u0000" }, 32) ?? {})).toEqual([`${"k".repeat(64)}…`]);
  });

  it("property: a body passes exactly when every string and key is storable and it is within the depth", () => {
    fc.assert(
      fc.property(hostileJson, fc.integer({ min: 1, max: 6 }), (value, maxDepth) => {
        const { strings, depth } = inspect(value);
        const expected = strings.every(storable) && depth <= maxDepth;
        expect(findJsonProblem(value, maxDepth) === null).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("the event sanitiser (Relay-style repair)", () => {
  it("returns a clean event as the same object, with no errors", () => {
    const event = { message: "hello 🚀", extra: { a: [1, 2, { b: null }] } };
    expect(sanitizeEventPayload(event)).toEqual({ value: event, errors: [] });
    expect(sanitizeEventPayload(event).value).toBe(event);
  });

  it("repairs text, keys, depth and length, and lists what it did", () => {
    const { value, errors } = sanitizeEventPayload({
      message: "a\u0000",
      extra: { "k\ud800": 1, deep: nested(40, "object"), long: "x".repeat(20_000) },
    });
    const extra = (value as { extra: Record<string, unknown> }).extra;
    expect((value as { message: string }).message).toBe("a\uFFFD");
    expect(extra["k\uFFFD"]).toBe(1);
    expect((extra.long as string).length).toBe(EVENT_SANITIZE_LIMITS.maxStringLength);
    expect(inspect(value).depth).toBe(EVENT_SANITIZE_LIMITS.maxDepth);
    expect(errors).toEqual([
      { type: "invalid_data", name: "message", reason: "contained a NUL character (replaced by U+FFFD)" },
      {
        type: "invalid_data",
        name: "extra.k\uFFFD",
        reason: "key contained an unpaired UTF-16 surrogate (replaced by U+FFFD)",
      },
      {
        type: "invalid_data",
        name: expect.stringMatching(/^extra\.deep\.a\./),
        reason: "nested deeper than 32 levels",
      },
      { type: "value_too_long", name: "extra.long", reason: "longer than 16384 characters" },
    ]);
  });

  it("caps the error list, keeps `__proto__` as data, and turns what JSON cannot carry into what JSON.stringify would", () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, "\u0000"]));
    expect(sanitizeEventPayload(many).errors).toHaveLength(EVENT_SANITIZE_LIMITS.maxErrors);
    const parsed = JSON.parse('{"__proto__": {"polluted": "\\u0000"}}') as Record<string, unknown>;
    const repaired = sanitizeEventPayload(parsed).value as Record<string, unknown>;
    expect(Object.getPrototypeOf(repaired)).toBe(Object.prototype);
    expect(Object.keys(repaired)).toEqual(["__proto__"]);
    expect(JSON.stringify(repaired)).toBe('{"__proto__":{"polluted":"\uFFFD"}}');
    const cyclic: Record<string, unknown> = {
      when: new Date(0),
      n: 10n,
      f: () => 1,
      u: undefined,
      list: [undefined, Number.NaN],
    };
    cyclic.self = cyclic;
    expect(sanitizeEventPayload(cyclic).value).toEqual({
      when: "1970-01-01T00:00:00.000Z",
      n: "10",
      list: [null, null],
      self: "[Circular]",
    });
  });

  it("survives 1,000,000 levels of nesting", () => {
    const { value } = sanitizeEventPayload({ extra: nested(1_000_000, "array") });
    expect(() => JSON.stringify(value)).not.toThrow();
  });

  it("property: the output is storable JSON within the depth cap, repairing it again changes nothing", () => {
    fc.assert(
      fc.property(hostileJson, (raw) => {
        const limits = { maxDepth: 3, maxStringLength: 8, maxErrors: 5 };
        const { value, errors } = sanitizeEventPayload(raw, limits);
        expect(errors.length).toBeLessThanOrEqual(limits.maxErrors);
        const { strings, depth } = inspect(value);
        expect(strings.every(storable)).toBe(true);
        expect(depth).toBeLessThanOrEqual(limits.maxDepth + 1);
        expect(findJsonProblem(value, limits.maxDepth + 1)).toBeNull();
        expect(() => JSON.stringify(value)).not.toThrow();
        const again = sanitizeEventPayload(value, limits);
        expect(again.errors).toEqual([]);
        expect(again.value).toBe(value);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("SCIM filter bounds", () => {
  it("refuses nesting past the limit without overflowing the stack, even 100,000 levels", () => {
    const parens = (depth: number) => `${"(".repeat(depth)}userName eq "x"${")".repeat(depth)}`;
    expect(() => parseFilter(parens(MAX_FILTER_DEPTH))).not.toThrow();
    expect(() => parseFilter(parens(MAX_FILTER_DEPTH + 1))).toThrow(
      new FilterSyntaxError(
        `The filter is nested deeper than ${MAX_FILTER_DEPTH} levels (position ${MAX_FILTER_DEPTH})`,
      ),
    );
    expect(() => parseFilter(parens(100_000))).toThrow(FilterSyntaxError);
    expect(() => parseFilter(`${"not ".repeat(100_000)}userName pr`)).toThrow(FilterSyntaxError);
    expect(() => parsePatchPath(`emails[${parens(100_000)}]`)).toThrow(FilterSyntaxError);
  });

  it("refuses more than the maximum number of comparisons", () => {
    const terms = (count: number) => Array.from({ length: count }, (_, i) => `userName eq "u${i}"`).join(" or ");
    expect(() => parseFilter(terms(MAX_FILTER_TERMS))).not.toThrow();
    expect(() => parseFilter(terms(MAX_FILTER_TERMS + 1))).toThrow(
      `The filter has more than ${MAX_FILTER_TERMS} comparisons`,
    );
  });

  it("refuses string escapes that decode to text PostgreSQL cannot store", () => {
    expect(() => parseFilter('userName eq "a\\u0000"')).toThrow("The string at position 12 contains a NUL character");
    expect(() => parseFilter('userName eq "\\ud800"')).toThrow("contains an unpaired UTF-16 surrogate");
    expect(parseFilter('userName eq "\\ud83d\\ude80"')).toEqual({ op: "eq", attrPath: "userName", value: "🚀" });
  });
});
