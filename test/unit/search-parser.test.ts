import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import type { Database } from "../../src/db/schema.js";
import { ApiError } from "../../src/http/errors.js";
import type { SearchTerm } from "../../src/plugins/issues/search/ast.js";
import { parseAssigneeRef, parseIsoDate, parseSearchQuery } from "../../src/plugins/issues/search/parser.js";
import { searchCondition } from "../../src/plugins/issues/search/to-sql.js";
import { SEARCH_KEYS, searchKey } from "../../src/plugins/issues/search/keys.js";

const terms = (query: string) => parseSearchQuery(query).terms;
const one = (query: string) => {
  const parsed = terms(query);
  expect(parsed).toHaveLength(1);
  return parsed[0] as SearchTerm;
};
const parseError = (query: string): ApiError => {
  try {
    parseSearchQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected "${query}" not to parse`);
};

describe("search query parser", () => {
  it("parses an empty or blank query to no terms", () => {
    expect(terms("")).toEqual([]);
    expect(terms("   \t ")).toEqual([]);
  });

  it("parses every is: value, with is:archived as an alias of ignored", () => {
    for (const value of [
      "unresolved",
      "resolved",
      "ignored",
      "assigned",
      "unassigned",
      "linked",
      "unlinked",
      "new",
      "ongoing",
      "regressed",
      "escalating",
    ]) {
      expect(one(`is:${value}`)).toEqual({ type: "is", values: [value], negated: false });
    }
    expect(one("is:archived")).toEqual({ type: "is", values: ["ignored"], negated: false });
    expect(one("is:Resolved")).toEqual({ type: "is", values: ["resolved"], negated: false });
  });

  it("parses assigned: me, none, my_teams, #team and a user or email", () => {
    expect(one("assigned:me")).toEqual({ type: "assigned", values: [{ kind: "me" }], negated: false });
    expect(one("assigned:none")).toEqual({ type: "assigned", values: [{ kind: "none" }], negated: false });
    expect(one("assigned:my_teams")).toEqual({ type: "assigned", values: [{ kind: "my_teams" }], negated: false });
    expect(one("assigned:#backend")).toEqual({
      type: "assigned",
      values: [{ kind: "team", slug: "backend" }],
      negated: false,
    });
    expect(one("assigned:ada@acme.test")).toEqual({
      type: "assigned",
      values: [{ kind: "user", ref: "ada@acme.test" }],
      negated: false,
    });
    expect(one("assigned:[me, none]")).toEqual({
      type: "assigned",
      values: [{ kind: "me" }, { kind: "none" }],
      negated: false,
    });
    expect(parseAssigneeRef("bob")).toEqual({ kind: "user", ref: "bob" });
  });

  it("parses bookmarks:me and subscribed:me (and another user)", () => {
    expect(one("bookmarks:me")).toEqual({ type: "bookmarks", values: [{ kind: "me" }], negated: false });
    expect(one("subscribed:me")).toEqual({ type: "subscribed", values: [{ kind: "me" }], negated: false });
    expect(one("bookmarks:bob")).toEqual({ type: "bookmarks", values: [{ kind: "user", ref: "bob" }], negated: false });
  });

  it("parses level, environment and release, validating levels", () => {
    expect(one("level:error")).toEqual({ type: "level", values: ["error"], negated: false });
    expect(one("level:[fatal, WARNING]")).toEqual({ type: "level", values: ["fatal", "warning"], negated: false });
    expect(one("environment:prod")).toEqual({ type: "environment", values: ["prod"], negated: false });
    expect(one("release:1.2.3")).toEqual({ type: "release", values: ["1.2.3"], negated: false });
    expect(parseError("level:loud").detail).toBe(
      'Error parsing search query: unknown level "loud" (expected one of fatal, error, warning, info, debug)',
    );
  });

  it("parses durations: -24h within the last, +7d older than, units m h d w", () => {
    expect(one("firstSeen:-24h")).toEqual({
      type: "date",
      field: "firstSeen",
      op: ">=",
      value: { kind: "relative", ms: 24 * 3_600_000 },
      negated: false,
    });
    expect(one("lastSeen:+7d")).toEqual({
      type: "date",
      field: "lastSeen",
      op: "<=",
      value: { kind: "relative", ms: 7 * 86_400_000 },
      negated: false,
    });
    expect(one("lastSeen:-30m")).toMatchObject({ value: { kind: "relative", ms: 30 * 60_000 } });
    expect(one("firstSeen:-2w")).toMatchObject({ value: { kind: "relative", ms: 14 * 86_400_000 } });
    expect(one("age:-1h")).toMatchObject({ type: "date", field: "firstSeen" });
  });

  it("parses ISO dates with comparison operators, and a bare date as that day", () => {
    expect(one("firstSeen:>2026-01-02")).toEqual({
      type: "date",
      field: "firstSeen",
      op: ">",
      value: { kind: "absolute", date: new Date("2026-01-02T00:00:00.000Z"), precision: "day" },
      negated: false,
    });
    expect(one("lastSeen:<=2026-01-02T10:30:00Z")).toMatchObject({
      op: "<=",
      value: { date: new Date("2026-01-02T10:30:00.000Z"), precision: "instant" },
    });
    expect(one("lastSeen:>=2026-01-02T10:30:00.250+02:00")).toMatchObject({
      op: ">=",
      value: { date: new Date("2026-01-02T08:30:00.250Z") },
    });
    expect(one("lastSeen:<2026-01-02T10:30")).toMatchObject({
      op: "<",
      value: { date: new Date("2026-01-02T10:30:00.000Z") },
    });
    expect(one("firstSeen:2026-03-04")).toMatchObject({ op: "=", value: { precision: "day" } });
    expect(parseIsoDate("2026-02-30")).toBeNull();
    expect(parseIsoDate("2026-13-01")).toBeNull();
  });

  it("parses timesSeen and userCount with every comparison", () => {
    expect(one("timesSeen:10")).toEqual({ type: "count", field: "timesSeen", op: "=", value: 10, negated: false });
    for (const op of [">", ">=", "<", "<="]) expect(one(`timesSeen:${op}10`)).toMatchObject({ op, value: 10 });
    expect(one("userCount:>5")).toEqual({ type: "count", field: "userCount", op: ">", value: 5, negated: false });
  });

  it("parses has:, tag:value, tags[key]:value and quoted values", () => {
    expect(one("has:browser")).toEqual({ type: "has", keys: ["browser"], negated: false });
    expect(one("browser:Firefox")).toEqual({
      type: "tag",
      key: "browser",
      values: ["Firefox"],
      known: true,
      negated: false,
    });
    expect(one("team:core")).toEqual({ type: "tag", key: "team", values: ["core"], known: false, negated: false });
    expect(one("browser.name:Firefox")).toMatchObject({ key: "browser.name" });
    expect(one('browser:"Mobile Safari"')).toEqual({
      type: "tag",
      key: "browser",
      values: ["Mobile Safari"],
      known: true,
      negated: false,
    });
    expect(one('url:"say \\"hi\\""')).toMatchObject({ values: ['say "hi"'] });
    expect(one("tags[sentry:user]:id:42")).toEqual({
      type: "tag",
      key: "sentry:user",
      values: ["id:42"],
      known: true,
      negated: false,
    });
    expect(one('browser:[Firefox, "Mobile Safari", Chrome]')).toMatchObject({
      values: ["Firefox", "Mobile Safari", "Chrome"],
    });
  });

  it("parses negation !key:value on any filter", () => {
    expect(one("!is:resolved")).toEqual({ type: "is", values: ["resolved"], negated: true });
    expect(one("!browser:Firefox")).toEqual({
      type: "tag",
      key: "browser",
      values: ["Firefox"],
      known: true,
      negated: true,
    });
    expect(one("!environment:[prod, staging]")).toEqual({
      type: "environment",
      values: ["prod", "staging"],
      negated: true,
    });
    expect(one("!has:browser")).toMatchObject({ type: "has", negated: true });
  });

  it("keeps bare words and quoted phrases as free text", () => {
    expect(terms('TypeError "is undefined" handler')).toEqual([
      { type: "text", text: "TypeError" },
      { type: "text", text: "is undefined" },
      { type: "text", text: "handler" },
    ]);
    // A word ending in a colon is pasted message text, not a filter without a value.
    expect(terms("TypeError: x")).toEqual([
      { type: "text", text: "TypeError:" },
      { type: "text", text: "x" },
    ]);
    expect(terms("it's 10:30 !important")).toEqual([
      { type: "text", text: "it's" },
      { type: "text", text: "10:30" },
      { type: "text", text: "!important" },
    ]);
  });

  it("ANDs mixed tokens in order", () => {
    expect(terms("is:unresolved level:error  browser:Firefox  crash").map((t) => t.type)).toEqual([
      "is",
      "level",
      "tag",
      "text",
    ]);
  });

  it("rejects invalid syntax with a 400 that says why", () => {
    const cases: Array<[string, string]> = [
      ["is:bogus", 'unknown value "bogus" for "is:"'],
      ["is:", 'missing value for "is:"'],
      ["firstSeen:-24x", 'invalid duration "-24x" for "firstSeen:" (units: m, h, d, w)'],
      ["firstSeen:yesterday", 'invalid date "yesterday" for "firstSeen:"'],
      ["lastSeen:>-24h", 'invalid date ">-24h" for "lastSeen:"'],
      ["firstSeen:2026-02-30", 'invalid date "2026-02-30"'],
      ["timesSeen:>ten", 'invalid number ">ten" for "timesSeen:"'],
      ["timesSeen:[1, 2]", '"timesSeen:" does not take a list'],
      ['browser:"Firefox', "missing closing quote"],
      ['"unterminated phrase', "missing closing quote"],
      ["browser:[Firefox, Chrome", 'missing "]" to close the list of "browser:"'],
      ["browser:[Firefox,, Chrome]", 'empty item in the list of "browser:"'],
      ["browser:[a b]x", 'unexpected "x" after the list of "browser:"'],
      ['browser:"a"b', 'unexpected "b" after the value of "browser:"'],
      ['browser:""', 'empty value for "browser:"'],
      [":value", 'malformed token ":value"'],
      ["!:value", 'malformed token "!:value"'],
      ["assigned:#", 'missing team slug after "#"'],
    ];
    for (const [query, why] of cases) {
      const error = parseError(query);
      expect(error.status, query).toBe(400);
      expect(error.detail, query).toContain(`Error parsing search query: ${why}`);
      expect(error.extra.errors, query).toEqual({ query: [expect.stringContaining(why)] });
    }
  });
});

describe("search query to SQL", () => {
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const now = new Date("2026-03-01T12:00:00.000Z");
  const compile = (query: string, userId: number | null = 7) =>
    db
      .selectFrom("issues")
      .selectAll()
      .where((eb) => searchCondition(eb, terms(query), { organizationId: 1, userId, now }))
      .compile();

  it("turns facets into EXISTS subqueries keyed by the issue id", () => {
    const { sql, parameters } = compile("environment:prod release:1.0 browser:Firefox has:os is:linked bookmarks:me");
    expect(sql).toContain(
      'exists (select 1 as "one" from "issue_environments" as "f" where "f"."issue_id" = "issues"."id" and "f"."environment" in ($1))',
    );
    expect(sql).toContain('from "issue_releases" as "f"');
    expect(sql).toContain('"f"."key" = $3 and "f"."value" in ($4)');
    expect(sql).toContain('from "external_issues" as "x"');
    expect(sql).toContain('from "issue_user_state" as "s"');
    expect(parameters).toEqual(["prod", "1.0", "browser", "Firefox", "os", 1, true, 7]);
  });

  it("negates null-safely, resolves relative dates from now, and escapes LIKE wildcards", () => {
    const { sql, parameters } = compile("!is:new lastSeen:-24h 100%_done");
    expect(sql).toContain('not coalesce("issues"."substatus" = $1, false)');
    expect(parameters).toContainEqual(new Date("2026-02-28T12:00:00.000Z"));
    expect(parameters).toContain("%100\\%\\_done%");
  });

  it("refuses `me` without a user", () => {
    expect(() => compile("assigned:me", null)).toThrow('Error parsing search query: "assigned:me" needs a user token');
    expect(() => compile("bookmarks:me", null)).toThrow('"bookmarks:me" needs a user token');
  });
});

describe("search key definitions", () => {
  it("parse under every spelling, and docs/search.md documents each of them", async () => {
    const { readFile } = await import("node:fs/promises");
    const doc = await readFile(new URL("../../docs/search.md", import.meta.url), "utf8");
    for (const definition of SEARCH_KEYS) {
      for (const spelling of [definition.key, ...definition.aliases]) {
        expect(doc, spelling).toContain(`\`${spelling}:\``);
        expect(searchKey(spelling)).toBe(definition);
      }
      // Examples ending in `:`, `#` or `""` are prefixes for the suggestion list, to be completed.
      for (const example of definition.examples)
        if (!/[:#"]$/.test(example)) expect(() => terms(example), example).not.toThrow();
    }
  });
});
