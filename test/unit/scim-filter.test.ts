import { describe, expect, it } from "vitest";
import {
  COMPARE_OPERATORS,
  type Filter,
  type FilterValue,
  FilterSyntaxError,
  parseFilter,
  parsePatchPath,
  stringifyFilter,
  stringifyPatchPath,
} from "../../src/plugins/scim/resources/filter.js";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/** A small seeded PRNG (mulberry32), so that a failing case can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick, int: (max: number) => Math.floor(next() * max) };
}
type Random = ReturnType<typeof random>;

const ATTRIBUTES = [
  "userName",
  "name.givenName",
  "emails.value",
  "active",
  "meta.lastModified",
  `${ENTERPRISE}:department`,
  "x509Certificates.display",
  "$ref",
];
const SUB_ATTRIBUTES = ["type", "value", "primary", "display"];
const STRINGS = [
  "",
  "a",
  "Ada",
  "and",
  "or",
  "not",
  ' "quoted" ',
  "back\\slash",
  "tab\tnew\nline",
  "é ü 漢字",
  "😀",
  "(paren) [bracket]",
  'x eq "y"',
];

function value(r: Random): FilterValue {
  switch (r.int(6)) {
    case 0:
      return r.pick([true, false]);
    case 1:
      return null;
    case 2:
      return r.int(2000) - 1000;
    case 3:
      return r.pick([1.5, 0.25, 12345.678, 1e21, 2.5e-7]);
    default:
      return r.pick(STRINGS);
  }
}

function leaf(r: Random, attributes: readonly string[]): Filter {
  const attrPath = r.pick(attributes);
  const op = r.pick([...COMPARE_OPERATORS, "pr"] as const);
  return op === "pr" ? { op, attrPath } : { op, attrPath, value: value(r) };
}

function filter(r: Random, depth: number, inValuePath = false): Filter {
  const attributes = inValuePath ? SUB_ATTRIBUTES : ATTRIBUTES;
  if (depth === 0) return leaf(r, attributes);
  switch (r.int(inValuePath ? 4 : 5)) {
    case 0:
      return { op: "and", left: filter(r, depth - 1, inValuePath), right: filter(r, depth - 1, inValuePath) };
    case 1:
      return { op: "or", left: filter(r, depth - 1, inValuePath), right: filter(r, depth - 1, inValuePath) };
    case 2:
      return { op: "not", filter: filter(r, depth - 1, inValuePath) };
    case 3:
      return leaf(r, attributes);
    default:
      return { op: "[]", attrPath: r.pick(["emails", "addresses", "members"]), filter: filter(r, depth - 1, true) };
  }
}

/** Keywords and operators in random letter case, random spacing: what a client may send for the same tree. */
function scrambled(r: Random, node: Filter, parent = 0, right = false): string {
  const word = (text: string) => [...text].map((c) => (r.next() < 0.5 ? c.toUpperCase() : c)).join("");
  const space = () => " ".repeat(1 + r.int(2));
  switch (node.op) {
    case "and":
    case "or": {
      const precedence = node.op === "or" ? 1 : 2;
      const text = `${scrambled(r, node.left, precedence)}${space()}${word(node.op)}${space()}${scrambled(r, node.right, precedence, true)}`;
      return precedence < parent || (precedence === parent && right) ? `(${r.next() < 0.5 ? " " : ""}${text})` : text;
    }
    case "not":
      return `${word("not")}${r.next() < 0.5 ? "" : " "}(${scrambled(r, node.filter)})`;
    case "pr":
      return `${node.attrPath}${space()}${word("pr")}`;
    case "[]":
      return `${node.attrPath}[${scrambled(r, node.filter)}]`;
    default: {
      const literal =
        typeof node.value === "string"
          ? JSON.stringify(node.value)
          : typeof node.value === "number"
            ? String(node.value)
            : word(String(node.value));
      return `${node.attrPath}${space()}${word(node.op)}${space()}${literal}`;
    }
  }
}

describe("SCIM filter parser", () => {
  it("reads every comparison operator and pr, operators in any letter case", () => {
    for (const op of COMPARE_OPERATORS) {
      expect(parseFilter(`userName ${op.toUpperCase()} "a"`)).toEqual({ op, attrPath: "userName", value: "a" });
    }
    expect(parseFilter("title Pr")).toEqual({ op: "pr", attrPath: "title" });
  });

  it("binds and tighter than or, both left-associative; parentheses and not group", () => {
    expect(parseFilter("a eq 1 or b eq 2 and c eq 3")).toEqual({
      op: "or",
      left: { op: "eq", attrPath: "a", value: 1 },
      right: { op: "and", left: { op: "eq", attrPath: "b", value: 2 }, right: { op: "eq", attrPath: "c", value: 3 } },
    });
    expect(parseFilter("(a pr OR b pr) AND NOT (c pr)")).toEqual({
      op: "and",
      left: { op: "or", left: { op: "pr", attrPath: "a" }, right: { op: "pr", attrPath: "b" } },
      right: { op: "not", filter: { op: "pr", attrPath: "c" } },
    });
    expect(parseFilter("a pr and b pr and c pr")).toEqual({
      op: "and",
      left: { op: "and", left: { op: "pr", attrPath: "a" }, right: { op: "pr", attrPath: "b" } },
      right: { op: "pr", attrPath: "c" },
    });
  });

  it("keeps attribute names as written (the translator resolves them case-insensitively), URNs included", () => {
    expect(parseFilter('USERNAME eq "x"')).toEqual({ op: "eq", attrPath: "USERNAME", value: "x" });
    expect(parseFilter(`${ENTERPRISE}:manager.value eq "42"`)).toEqual({
      op: "eq",
      attrPath: `${ENTERPRISE}:manager.value`,
      value: "42",
    });
  });

  it("reads value paths; a sub-attribute after the brackets must hold for the same element", () => {
    expect(parseFilter('emails[type eq "work" and value co "@example.com"]')).toEqual({
      op: "[]",
      attrPath: "emails",
      filter: {
        op: "and",
        left: { op: "eq", attrPath: "type", value: "work" },
        right: { op: "co", attrPath: "value", value: "@example.com" },
      },
    });
    expect(parseFilter('emails[type eq "work"].value eq "a@b.c"')).toEqual({
      op: "[]",
      attrPath: "emails",
      filter: {
        op: "and",
        left: { op: "eq", attrPath: "type", value: "work" },
        right: { op: "eq", attrPath: "value", value: "a@b.c" },
      },
    });
  });

  it("reads JSON string escapes, numbers, and true/false/null in any letter case", () => {
    expect(parseFilter('a eq "q\\"uote \\\\ \\u00e9 \\n"')).toEqual({
      op: "eq",
      attrPath: "a",
      value: 'q"uote \\ é \n',
    });
    expect(parseFilter("a gt -1.5e2")).toEqual({ op: "gt", attrPath: "a", value: -150 });
    expect(parseFilter("a eq True or b eq FALSE or c eq Null")).toEqual({
      op: "or",
      left: {
        op: "or",
        left: { op: "eq", attrPath: "a", value: true },
        right: { op: "eq", attrPath: "b", value: false },
      },
      right: { op: "eq", attrPath: "c", value: null },
    });
  });

  it.each([
    [""],
    ["   "],
    ["userName"],
    ["userName eq"],
    ['userName equals "x"'],
    ['userName eq "x'],
    ["userName eq x"],
    ['(userName eq "x"'],
    ['userName eq "x")'],
    ['userName eq "x" and'],
    ['userName eq "x" userName eq "y"'],
    ['emails[type eq "work"'],
    ['emails[type eq "work"]]'],
    ['emails[members[value eq "1"]]'],
    ['emails[type eq "work"].'],
    ['userName eq "x" # comment'],
    ['"x" eq userName'],
    ["userName eq 01"],
    ['userName eq "\\q"'],
  ])("rejects %j with a FilterSyntaxError", (text) => {
    expect(() => parseFilter(text)).toThrow(FilterSyntaxError);
  });

  it("property: any filter tree, stringified, parses back to the same tree", () => {
    for (let seed = 1; seed <= 600; seed++) {
      const r = random(seed);
      const tree = filter(r, 1 + r.int(4));
      const text = stringifyFilter(tree);
      expect(parseFilter(text), `seed ${seed}: ${text}`).toEqual(tree);
    }
  });

  it("property: keywords in any letter case and any spacing give the same tree", () => {
    for (let seed = 1; seed <= 600; seed++) {
      const r = random(seed * 7919);
      const tree = filter(r, 1 + r.int(4));
      const text = scrambled(r, tree);
      expect(parseFilter(text), `seed ${seed}: ${text}`).toEqual(tree);
    }
  });
});

describe("SCIM PATCH path parser", () => {
  it("reads attribute paths, value paths and a trailing sub-attribute", () => {
    expect(parsePatchPath("name.givenName")).toEqual({ attrPath: "name.givenName", filter: null, subAttr: null });
    expect(parsePatchPath(`${ENTERPRISE}:employeeNumber`)).toEqual({
      attrPath: `${ENTERPRISE}:employeeNumber`,
      filter: null,
      subAttr: null,
    });
    expect(parsePatchPath('members[value eq "42"]')).toEqual({
      attrPath: "members",
      filter: { op: "eq", attrPath: "value", value: "42" },
      subAttr: null,
    });
    expect(parsePatchPath('emails[type eq "work"].value')).toEqual({
      attrPath: "emails",
      filter: { op: "eq", attrPath: "type", value: "work" },
      subAttr: "value",
    });
  });

  it("prints paths back canonically", () => {
    expect(stringifyPatchPath(parsePatchPath('emails[ type  EQ "work" ].value'))).toBe('emails[type eq "work"].value');
  });

  it.each([[""], ["emails[type eq]"], ['emails[type eq "work"] value'], ['emails[type eq "work"].value.x']])(
    "rejects %j",
    (text) => {
      expect(() => parsePatchPath(text)).toThrow(FilterSyntaxError);
    },
  );
});
