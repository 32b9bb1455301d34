import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node/index.js";
import { definePlugin, type FaultlineOptions, registerValue, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import {
  type EnvelopeItemContext,
  type EnvelopeItemHandler,
  EnvelopeItemHandlerToken,
  type EnvelopeItemInput,
} from "../../src/plugins/ingest/index.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { listen } from "../helpers/server.js";

/**
 * Envelope items other than events reach the plugin registered for their type (docs/ingest.md,
 * "Other envelope items"), whichever path accepted the envelope: a worker thread, inline, direct.
 */
interface Received {
  items: Array<{ type: string; header: Record<string, unknown>; text: string }>;
  context: Omit<EnvelopeItemContext, "outcome" | "attachments"> & { attachments: string[] };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const utf8 = new TextDecoder();
const text = (item: EnvelopeItemInput) => utf8.decode(item.payload);

/** A host plugin keeping `check_in` items: records what it gets; a check-in without a slug is counted invalid. */
function checkInPlugin(received: Received[]) {
  const handler: EnvelopeItemHandler = {
    itemTypes: ["check_in"],
    async accept(items, context) {
      const valid = items.filter((item) => JSON.parse(text(item)).monitor_slug);
      if (valid.length < items.length) context.outcome("monitor", "invalid", "payload", items.length - valid.length);
      received.push({
        items: valid.map((item) => ({ type: item.type, header: item.header, text: text(item) })),
        context: {
          project: context.project,
          receivedAt: context.receivedAt,
          clientAddress: context.clientAddress,
          envelopeHeader: context.envelopeHeader,
          attachments: context.attachments.map(text),
        },
      });
    },
  };
  return definePlugin({
    id: "test-check-ins",
    register: (container) => registerValue(container, EnvelopeItemHandlerToken, handler),
  });
}

async function setup(ingest: NonNullable<FaultlineOptions["ingest"]>) {
  const received: Received[] = [];
  const instance = await createTestInstance({
    worker: false,
    logger: silentLogger,
    ingest,
    plugins: [checkInPlugin(received)],
  });
  cleanups.push(() => instance.close());
  const seed = await seedOrganization(instance.faultline);
  const handler = toNodeHandler(instance.faultline);
  const server = await listen(createServer((req, res) => void handler(req, res)));
  cleanups.push(() => server.close());
  const key = seed.project.keys[0]?.public as string;
  return { instance, seed, received, url: `${server.url}/api/${seed.project.id}/envelope/?sentry_key=${key}` };
}

const MODES: Array<[string, NonNullable<FaultlineOptions["ingest"]>]> = [
  ["worker threads", { queued: true, isolation: "threads" }],
  ["inline", { queued: true, isolation: "inline" }],
  ["direct", { queued: false }],
];

describe("envelope items other than events", () => {
  it.each(MODES)("reach their plugin with the envelope's attachments (%s)", async (_mode, ingest) => {
    const { instance, seed, received, url } = await setup(ingest);
    const eventId = randomUUID().replaceAll("-", "");
    const checkIn = { check_in_id: randomUUID().replaceAll("-", ""), monitor_slug: "nightly", status: "ok" };
    const body = [
      JSON.stringify({ event_id: eventId, sent_at: "2026-03-01T00:00:00Z" }),
      '{"type":"event"}',
      JSON.stringify(errorEvent({ event_id: eventId })),
      '{"type":"check_in"}',
      JSON.stringify(checkIn),
      '{"type":"check_in"}',
      JSON.stringify({ status: "ok" }),
      '{"type":"attachment","length":5,"filename":"a.txt"}',
      "hello",
      '{"type":"session"}',
      '{"sid":"x"}',
      "",
    ].join("\n");
    const response = await fetch(url, { method: "POST", body });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: eventId });
    await digestQueued(instance.faultline);

    expect(received).toHaveLength(1);
    const [{ items, context }] = received as [Received];
    expect(items).toEqual([{ type: "check_in", header: { type: "check_in" }, text: JSON.stringify(checkIn) }]);
    expect(context.project).toMatchObject({
      id: Number(seed.project.id),
      organizationId: Number(seed.organization.id),
    });
    expect(context.envelopeHeader).toEqual({ event_id: eventId, sent_at: "2026-03-01T00:00:00Z" });
    expect(context.attachments).toEqual(["hello"]);
    expect(context.receivedAt).toBeInstanceOf(Date);

    // The event went its own way; the invalid check-in is in the project's outcomes.
    const db = instance.faultline.container.resolve(tokens.Db);
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    expect(await db.selectFrom("events").select("event_id").execute()).toEqual([{ event_id: eventId }]);
    const outcomes = await db
      .selectFrom("ingest_outcomes")
      .select(["category", "outcome", "reason", "quantity"])
      .where("category", "=", "monitor")
      .execute();
    // Counted by this handler and by the first-party crons plugin, which keeps check-ins too (docs/crons.md):
    // the check-in without a slug by both, the "nightly" one of a monitor that does not exist by crons.
    expect(
      outcomes
        .map((row) => ({ ...row, quantity: Number(row.quantity) }))
        .sort((a, b) => a.reason.localeCompare(b.reason)),
    ).toEqual([
      { category: "monitor", outcome: "invalid", reason: "payload", quantity: 2 },
      { category: "monitor", outcome: "invalid", reason: "unknown_monitor", quantity: 1 },
    ]);
  });

  it("answers an envelope of other items only with {} and hands them over", async () => {
    const { received, url } = await setup({ queued: true, isolation: "threads" });
    const body = `{}\n{"type":"check_in"}\n{"monitor_slug":"hourly","status":"in_progress"}\n`;
    const response = await fetch(url, { method: "POST", body });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(received.map((r) => r.items.map((item) => JSON.parse(item.text).monitor_slug))).toEqual([["hourly"]]);
  });
});
