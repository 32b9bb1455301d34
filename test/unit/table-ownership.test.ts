import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Each table has one owner (ARCHITECTURE.md, "Tables and migrations"): a plugin queries its own
 * tables and the core's, and reaches another plugin's data through that plugin's services. Lint
 * checks imports; this checks the queries, from the sources: a table named in a Kysely call
 * (`selectFrom("events")`, `innerJoin("issues as i", …)`) or in raw SQL (`table("events")`) by a
 * plugin that does not own it fails, unless it is one of the reads listed below, each with its reason.
 */
const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const pluginsDir = join(root, "src/plugins");

/** Cross-plugin reads kept on purpose: each is a join a service call could not replace without an N+1 or a copy. */
const ALLOWED: ReadonlyArray<{ plugin: string; table: string; why: string }> = [
  { plugin: "alerts", table: "events", why: "metric alerts count events in one aggregate query per rule" },
  { plugin: "alerts", table: "issues", why: "metric alerts' `is:` filters join the issue of each counted event" },
  {
    plugin: "deliveries",
    table: "service_hooks",
    why: "the delivery log names each delivery's hook in its list query",
  },
  {
    plugin: "event-store",
    table: "issues",
    why: "an event is served only while its issue is live (deleted issues' events are hidden)",
  },
  {
    plugin: "event-store",
    table: "issue_hashes",
    why: "the hashes page lists an issue's grouping hashes with their latest events",
  },
  {
    plugin: "issues",
    table: "events",
    why: "the list's event-id lookup, and retention's check for issues with no events left",
  },
  { plugin: "external-issues", table: "issues", why: "a link is listed with its issue's organization in one join" },
  {
    plugin: "issues",
    table: "external_issues",
    why: "search's `is:linked`/`is:unlinked` and the issue's links are joins",
  },
  {
    plugin: "releases",
    table: "releases",
    why: "the releases API manages the releases the event write path creates (one table, two writers)",
  },
];

const KYSELY_CALL =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto|table)\(\s*"(\w+)(?:\s+as\s+\w+)?"/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The tables a plugin declares in its `tables.ts`: the members of its `Database` augmentation (or its own tables interface). */
function tablesDeclaredIn(source: string): string[] {
  const blocks = source.matchAll(/interface (?:Database|\w+Tables) \{([^}]*)\}/g);
  return [...blocks].flatMap((block) => [...(block[1] ?? "").matchAll(/^\s*(\w+):/gm)].map((m) => m[1] ?? ""));
}

function owners(): Map<string, string> {
  const owned = new Map<string, string>();
  for (const plugin of readdirSync(pluginsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of sourceFiles(join(pluginsDir, plugin.name)).filter((path) => path.endsWith("tables.ts"))) {
      for (const table of tablesDeclaredIn(readFileSync(file, "utf8"))) owned.set(table, plugin.name);
    }
  }
  return owned;
}

/** Every `plugin → table of another plugin` reference in `source`. */
export function foreignTables(plugin: string, source: string, owned: ReadonlyMap<string, string>): string[] {
  return [...source.matchAll(KYSELY_CALL)]
    .map((match) => match[1] ?? "")
    .filter((table) => owned.has(table) && owned.get(table) !== plugin);
}

function crossPluginReferences(): Array<{ plugin: string; table: string; file: string }> {
  const owned = owners();
  return sourceFiles(pluginsDir)
    .filter((path) => !/migrations(\.ts|\/)/.test(path))
    .flatMap((file) => {
      const plugin = relative(pluginsDir, file).split("/")[0] ?? "";
      return foreignTables(plugin, readFileSync(file, "utf8"), owned).map((table) => ({
        plugin,
        table,
        file: relative(root, file),
      }));
    });
}

describe("table ownership", () => {
  it("finds the owners of the plugins' tables", () => {
    const owned = owners();
    expect(owned.get("issues")).toBeDefined();
    expect(owned.get("ingest_queue")).toBe("ingest");
    expect(owned.get("service_hooks")).toBe("service-hooks");
    expect(owned.has("projects")).toBe(false); // the core's: everyone's
  });

  it("flags a query of another plugin's table", () => {
    const owned = new Map([["service_hooks", "service-hooks"]]);
    expect(foreignTables("alerts", `db.selectFrom("service_hooks as h").selectAll()`, owned)).toEqual([
      "service_hooks",
    ]);
    expect(foreignTables("service-hooks", `db.selectFrom("service_hooks").selectAll()`, owned)).toEqual([]);
  });

  it("lets a plugin query only its own tables and the core's, but for the listed reads", () => {
    const unlisted = crossPluginReferences().filter(
      (reference) =>
        !ALLOWED.some((allowed) => allowed.plugin === reference.plugin && allowed.table === reference.table),
    );
    expect(unlisted).toEqual([]);
  });

  it("lists no read that is no longer made", () => {
    const references = crossPluginReferences();
    const stale = ALLOWED.filter(
      (allowed) =>
        !references.some((reference) => reference.plugin === allowed.plugin && reference.table === allowed.table),
    );
    expect(stale).toEqual([]);
  });
});
