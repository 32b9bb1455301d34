import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { coreMigrations, mergeMigrationShares, type SchemaMigration } from "../../src/db/migrations/index.js";
import { createFaultline, definePlugin } from "../../src/index.js";
import { composePlugins } from "../../src/plugin/compose.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";

const share = (name: string, ...statements: string[]): SchemaMigration => ({
  name,
  statements: (s) => statements.map((text) => `${text} ${s}`),
});

describe("migration shares: each plugin's part of Faultline's original migrations", () => {
  it("joins the shares of one name in the order the sets are given, and sorts the migrations by name", () => {
    const merged = mergeMigrationShares([
      [share("0001_a", "core a"), share("0003_c", "core c")],
      [share("0003_c", "plugin c"), share("0002_b", "plugin b")],
    ]);
    expect(merged.map((migration) => [migration.name, migration.statements("S")])).toEqual([
      ["0001_a", ["core a S"]],
      ["0002_b", ["plugin b S"]],
      ["0003_c", ["core c S", "plugin c S"]],
    ]);
  });

  it("refuses a set that lists one name twice (a share would run twice)", () => {
    expect(() => mergeMigrationShares([[share("0001_a", "x"), share("0001_a", "y")]])).toThrow(
      'Migration "0001_a" is listed twice in one set',
    );
  });

  it("the first-party shares join into exactly the migrations installs already ran: same names, in the same order", () => {
    const merged = composePlugins([...firstPartyPlugins]).coreLedgerMigrations;
    // Released names: recorded in every existing install's faultline_migration table. Never rename one.
    expect(merged.map((migration) => migration.name)).toEqual([
      "0001_core",
      "0002_issues",
      "0003_scim",
      "0004_delivery",
      "0005_apps",
      "0006_alerts",
      "0007_installation_consent",
      "0008_ingest_queue",
      "0009_retention",
      "0010_rate_limits",
      "0011_ingest_outcomes",
      "0012_key_rate_limit_window",
      "0014_sentry_hook_headers",
      "0015_release_stats",
      "0016_delivery_attempts",
      // Added after the shares were divided: the core's own (the database no longer lists destination types).
      "0017_delivery_destination_types",
    ]);
    // The alert rules' counting trigger is recreated after the issues' share of 0009 partitions `events`.
    const retention = merged.find((migration) => migration.name === "0009_retention")?.statements('"s"') ?? [];
    const partitioned = retention.findIndex((statement) => statement.includes("PARTITION BY RANGE"));
    const trigger = retention.findIndex((statement) => statement.includes("CREATE TRIGGER events_count_minutely"));
    expect(partitioned).toBeGreaterThanOrEqual(0);
    expect(trigger).toBeGreaterThan(partitioned);
  });

  it("re-dividing shares changes no statement: each migration's statements, in any order, are the released text", () => {
    const merged = composePlugins([...firstPartyPlugins]).coreLedgerMigrations;
    // sha256 of each migration's statements sorted (a share moving to another owner may reorder
    // them within the migration, never change one). A change here is a change to a released migration.
    const fingerprint = (statements: string[]) =>
      createHash("sha256")
        .update([...statements].sort().join("\n;\n"))
        .digest("hex")
        .slice(0, 16);
    expect(Object.fromEntries(merged.map((m) => [m.name, fingerprint(m.statements('"s"'))]))).toEqual({
      "0001_core": "e3df98e37d6d2780",
      "0002_issues": "7517f306012eb5a2",
      "0003_scim": "9a92b63ba8c9c94c",
      "0004_delivery": "c602df2db77a0907",
      "0005_apps": "0ee38e90dc6f8520",
      "0006_alerts": "21c3208045b3d537",
      "0007_installation_consent": "63ba559389a69e62",
      "0008_ingest_queue": "728c1790a44e792c",
      "0009_retention": "8b4aafa8114b34dd",
      "0010_rate_limits": "598af8f28b2ddb6c",
      "0011_ingest_outcomes": "e0f55d83aa9c5ad1",
      "0012_key_rate_limit_window": "294acccc5adbee47",
      "0014_sentry_hook_headers": "086fcd735f561849",
      "0015_release_stats": "543818d25735ccd0",
      "0016_delivery_attempts": "b9146b318ea849da",
      "0017_delivery_destination_types": "a39e5ece55d10fef",
    });
  });

  it("each table is created by exactly one owner", () => {
    const owners = new Map<string, string[]>();
    const sets: Array<[string, readonly SchemaMigration[]]> = [
      ["core", coreMigrations],
      ...firstPartyPlugins.map((plugin): [string, readonly SchemaMigration[]] => [
        plugin.id,
        [...(plugin.coreLedgerMigrations ?? []), ...(plugin.migrations ?? [])],
      ]),
    ];
    for (const [owner, migrations] of sets) {
      for (const statement of migrations.flatMap((migration) => migration.statements('"s"'))) {
        const table = /^CREATE TABLE "s"\.(\w+) /.exec(statement)?.[1];
        if (table) owners.set(table, [...(owners.get(table) ?? []), owner]);
      }
    }
    const shared = [...owners].filter(([, by]) => new Set(by).size > 1); // the event store's 0009 recreates its `events`
    expect(shared).toEqual([]);
    expect(owners.get("issues")).toEqual(["issues"]);
    expect(owners.get("events")).toEqual(["event-store", "event-store"]); // 0009 recreates it partitioned
    expect(owners.get("event_ids")).toEqual(["event-store"]);
    // Its foreign key to `issues` keeps the fingerprints with the issues (the event store's share runs first).
    expect(owners.get("issue_hashes")).toEqual(["issues"]);
    expect(owners.get("service_hooks")).toEqual(["service-hooks"]);
    expect(owners.get("app_request_log")).toEqual(["installations"]);
    expect(owners.get("deliveries")).toEqual(["core"]);
  });

  it("a host's plugin cannot add to the core's migration table", () => {
    const intruder = definePlugin({
      id: "acme-audit",
      coreLedgerMigrations: [share("0017_audit", "CREATE TABLE audit ()")],
    });
    expect(() => createFaultline({ database: "memory://", plugins: [intruder] })).toThrow(
      `Plugin "acme-audit": coreLedgerMigrations is for Faultline's own plugins; put its migrations in "migrations"`,
    );
  });
});
