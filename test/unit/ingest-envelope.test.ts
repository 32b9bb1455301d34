import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.js";
import { parseEnvelope } from "../../src/plugins/ingest/accept/envelope.js";
import { eventsOf } from "../../src/plugins/ingest/accept/event-payload.js";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const text = (payload: Uint8Array) => new TextDecoder().decode(payload);
const sample = readFileSync(new URL("../compat/fixtures/sentry-node-11-envelope.txt", import.meta.url));

function malformed(input: Uint8Array): ApiError {
  try {
    parseEnvelope(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected parseEnvelope to throw");
}

describe("parseEnvelope", () => {
  it("parses the real @sentry/node 11 capture (no lengths, no trailing newline)", () => {
    const envelope = parseEnvelope(sample);
    expect(envelope.header.event_id).toBe("56e3e367f13a4bd78386e5a775a1f767");
    expect(envelope.items).toHaveLength(1);
    expect(envelope.items[0]?.header).toEqual({ type: "event", length: undefined });
    const [event] = eventsOf(envelope).map((received) => received.event);
    expect(event?.exception).toMatchObject({ values: [{ type: "Error", value: "probe failure" }] });
    expect(event?.event_id).toBe("56e3e367f13a4bd78386e5a775a1f767");
  });

  it("takes exactly `length` bytes, so binary payloads may contain newlines", () => {
    const attachment = new Uint8Array([0x00, 0x0a, 0xff, 0x0a, 0x0d, 0x0a, 0x7b]);
    const head = bytes(`{"event_id":"abc"}\n{"type":"attachment","length":${attachment.length},"filename":"a.bin"}\n`);
    const tail = bytes(`\n{"type":"event","length":2}\n{}\n`);
    const envelope = parseEnvelope(new Uint8Array([...head, ...attachment, ...tail]));
    expect(envelope.items.map((item) => item.header.type)).toEqual(["attachment", "event"]);
    expect([...(envelope.items[0]?.payload ?? [])]).toEqual([...attachment]);
    expect(text(envelope.items[1]?.payload ?? new Uint8Array())).toBe("{}");
  });

  it("mixes items with and without length", () => {
    const envelope = parseEnvelope(
      bytes(
        '{}\n{"type":"session"}\n{"sid":"1"}\n{"type":"event","length":9}\n{"a":"b"}\n{"type":"client_report"}\n{}',
      ),
    );
    expect(envelope.items.map((item) => [item.header.type, text(item.payload)])).toEqual([
      ["session", '{"sid":"1"}'],
      ["event", '{"a":"b"}'],
      ["client_report", "{}"],
    ]);
  });

  it("tolerates a trailing newline, blank lines between items and CRLF line ends", () => {
    const envelope = parseEnvelope(
      bytes('{"dsn":"x"}\r\n{"type":"event"}\r\n{"x":1}\r\n\r\n{"type":"event","length":2}\r\n{}\r\n\n'),
    );
    expect(envelope.header).toEqual({ dsn: "x" });
    expect(envelope.items.map((item) => text(item.payload))).toEqual(['{"x":1}', "{}"]);
  });

  it("reads a length-less last item without a final newline, and an item with an empty payload", () => {
    expect(text(parseEnvelope(bytes('{}\n{"type":"event"}\n{"y":2}')).items[0]?.payload ?? new Uint8Array())).toBe(
      '{"y":2}',
    );
    const empty = parseEnvelope(bytes('{}\n{"type":"attachment","length":0}\n\n{"type":"event"}'));
    expect(empty.items.map((item) => [item.header.type, item.payload.byteLength])).toEqual([
      ["attachment", 0],
      ["event", 0],
    ]);
  });

  it("accepts an envelope with a header and no items", () => {
    expect(parseEnvelope(bytes('{"sent_at":"2026-01-01T00:00:00Z"}\n')).items).toEqual([]);
    expect(parseEnvelope(bytes("{}")).items).toEqual([]);
  });

  it("refuses an empty body", () => {
    expect(malformed(new Uint8Array()).detail).toBe("Malformed envelope: empty envelope");
    expect(malformed(bytes("\n\n")).status).toBe(400);
  });

  it("names a malformed envelope header or item header", () => {
    expect(malformed(bytes("not json\n")).detail).toMatch(/^Malformed envelope: envelope header is not valid JSON/);
    expect(malformed(bytes("[1]\n")).detail).toBe("Malformed envelope: envelope header is not a JSON object");
    expect(malformed(bytes('{}\n{"type":"event"\n{}')).detail).toMatch(
      /^Malformed envelope: item 0 header is not valid JSON/,
    );
    expect(malformed(bytes('{}\n{"length":2}\n{}')).detail).toBe('Malformed envelope: item 0 header has no "type"');
    expect(malformed(bytes('{}\n{"type":"event","length":-1}\n{}')).detail).toBe(
      'Malformed envelope: item 0 (event) has an invalid "length"',
    );
  });

  it("refuses a payload shorter than its length, or followed by something other than a newline", () => {
    expect(malformed(bytes('{}\n{"type":"event","length":50}\n{}')).detail).toBe(
      "Malformed envelope: item 0 (event) declares length 50 but only 2 bytes follow",
    );
    expect(malformed(bytes('{}\n{"type":"event","length":2}\n{}x\n')).detail).toBe(
      "Malformed envelope: item 0 (event): expected a newline after its 2-byte payload",
    );
  });
});

describe("eventsOf", () => {
  it("keeps only event items, and fills a missing event_id from the envelope header", () => {
    const envelope = parseEnvelope(
      bytes(
        '{"event_id":"e1"}\n{"type":"client_report"}\n{}\n{"type":"event"}\n{"message":"m"}\n{"type":"transaction"}\n{}',
      ),
    );
    // The object changed (its event_id filled in), so its text is no longer its source.
    expect(eventsOf(envelope)).toEqual([{ event: { message: "m", event_id: "e1" }, source: null }]);
  });

  it("keeps the event's own event_id, and its JSON text as it came", () => {
    const text = '{ "event_id": "e2" }';
    expect(eventsOf(parseEnvelope(bytes(`{"event_id":"e1"}\n{"type":"event"}\n${text}`)))).toEqual([
      { event: { event_id: "e2" }, source: text },
    ]);
  });

  it("answers 400 for an event that is not a JSON object and 413 for one over 1 MiB", () => {
    expect(() => eventsOf(parseEnvelope(bytes('{}\n{"type":"event"}\n{oops')))).toThrow(
      /^Invalid event: malformed JSON/,
    );
    expect(() => eventsOf(parseEnvelope(bytes('{}\n{"type":"event"}\n[1,2]')))).toThrow(
      "Invalid event: expected a JSON object",
    );
    const big = `{"message":"${"x".repeat(1024 * 1024)}"}`;
    try {
      eventsOf(parseEnvelope(bytes(`{}\n{"type":"event"}\n${big}`)));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 413, detail: "Event too large (limit 1 MiB)" });
    }
  });

  it("ignores every non-event item type, whatever its payload", () => {
    const types = [
      "client_report",
      "session",
      "sessions",
      "transaction",
      "attachment",
      "check_in",
      "log",
      "span",
      "replay_video",
      "made_up",
    ];
    const body = ["{}", ...types.flatMap((type) => [JSON.stringify({ type }), "not json at all"])].join("\n");
    expect(eventsOf(parseEnvelope(bytes(body)))).toEqual([]);
  });
});
