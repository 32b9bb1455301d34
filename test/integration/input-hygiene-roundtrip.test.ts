import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { repairText } from "../../src/http/input-policy.js";
import { silentLogger } from "../../src/logging/logger.js";
import { sanitizeEventPayload } from "../../src/plugins/event-store/grouping/sanitize.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { hostileJson, hostileString, nested } from "../helpers/hostile-json.js";

/**
 * Property (issue #13): whatever an SDK sends, what the event sanitiser makes of it is accepted by
 * PostgreSQL (jsonb and text) and comes back unchanged. This is the guarantee that lets ingestion
 * acknowledge an event without ever losing it to a database error.
 */
describe("sanitised values survive a PostgreSQL round trip", () => {
  let instance: TestInstance;
  const db = () => instance.faultline.container.resolve(tokens.Db);

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
  });
  afterAll(async () => {
    await instance?.close();
  });

  it("as jsonb, for any JSON with hostile strings and keys", async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson, async (raw) => {
        const text = JSON.stringify(sanitizeEventPayload(raw).value) ?? "null";
        const { rows } = await sql<{ value: unknown }>`select ${text}::jsonb as value`.execute(db());
        expect(rows[0]?.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 150 },
    );
  });

  it("as text, for any hostile string", async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, async (raw) => {
        const text = repairText(raw);
        const { rows } = await sql<{ value: string }>`select ${text}::text as value`.execute(db());
        expect(rows[0]?.value).toBe(text);
      }),
      { numRuns: 150 },
    );
  });

  it("a 10,000-level value, once capped, is stored as jsonb", async () => {
    const text = JSON.stringify(sanitizeEventPayload({ extra: nested(10_000, "object") }).value);
    const { rows } = await sql<{ type: string }>`select jsonb_typeof(${text}::jsonb) as type`.execute(db());
    expect(rows[0]?.type).toBe("object");
  });
});
