import { connect, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { GroupCommitBatcher } from "../../src/db/group-commit.js";
import {
  DatabaseUnavailableError,
  isConnectionFailure,
  isDataException,
  isDeadlockOrSerializationFailure,
} from "../../src/db/errors.js";
import { retryTransientFailures, type TransientFailures } from "../../src/db/retry.js";

/** A PostgreSQL error as `pg` and PGlite expose it: the SQLSTATE in `code`. */
const sqlState = (code: string, message = "postgres said no") => Object.assign(new Error(message), { code });

/** A real refused TCP connection (the port of a server that just closed). */
async function refusedConnectionError(): Promise<Error> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return new Promise((resolve) => connect(port, "127.0.0.1").on("error", resolve));
}

describe("isConnectionFailure: a lost or refused database connection (answered 503, retried)", () => {
  it.each([
    ["08006 connection_failure", sqlState("08006")],
    ["08001 sqlclient_unable_to_establish_sqlconnection", sqlState("08001")],
    ["08P01 protocol_violation (class 08)", sqlState("08P01")],
    [
      "57P01 admin_shutdown (pg_terminate_backend)",
      sqlState("57P01", "terminating connection due to administrator command"),
    ],
    ["57P02 crash_shutdown", sqlState("57P02")],
    ["57P03 cannot_connect_now (starting up, recovery)", sqlState("57P03", "the database system is starting up")],
    ["53300 too_many_connections", sqlState("53300")],
    ["ECONNRESET", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["ETIMEDOUT", Object.assign(new Error("connect ETIMEDOUT"), { code: "ETIMEDOUT" })],
    ["pg: Connection terminated unexpectedly", new Error("Connection terminated unexpectedly")],
    [
      "pg: Connection terminated due to connection timeout",
      new Error("Connection terminated due to connection timeout"),
    ],
    ["pg-pool: connect timeout", new Error("timeout exceeded when trying to connect")],
    [
      "pg: a client broken by an earlier error",
      new Error("Client has encountered a connection error and is not queryable"),
    ],
    [
      "Node's AggregateError of a refused dual-stack connect",
      new AggregateError([Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" })], ""),
    ],
    ["wrapped as a cause", new Error("init failed", { cause: sqlState("57P01") })],
    [
      "DatabaseUnavailableError (startup)",
      new DatabaseUnavailableError("Faultline could not connect", {
        cause: new Error("Connection terminated unexpectedly"),
      }),
    ],
  ])("%s", (_name, error) => {
    expect(isConnectionFailure(error)).toBe(true);
  });

  it("a real refused TCP connection", async () => {
    const error = await refusedConnectionError();
    expect((error as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    expect(isConnectionFailure(error)).toBe(true);
  });

  it.each([
    ["23505 unique_violation", sqlState("23505")],
    ["22P02 invalid_text_representation", sqlState("22P02")],
    ["42601 syntax_error", sqlState("42601")],
    ["40P01 deadlock_detected", sqlState("40P01")],
    ["57014 query_canceled (a statement timeout, not an outage)", sqlState("57014")],
    [
      "ENOTFOUND (a host name that does not exist: configuration)",
      Object.assign(new Error("getaddrinfo ENOTFOUND db"), { code: "ENOTFOUND" }),
    ],
    ["a plain error", new Error("boom")],
    ["a message that merely mentions a connection", new Error("Connection refused by the remote API")],
    ["not an error", "Connection terminated unexpectedly"],
    ["null", null],
  ])("not %s", (_name, error) => {
    expect(isConnectionFailure(error)).toBe(false);
  });

  it("a cyclic cause chain ends", () => {
    const error = new Error("outer") as Error & { cause?: unknown };
    error.cause = error;
    expect(isConnectionFailure(error)).toBe(false);
  });

  it("connection failures and data exceptions are told apart", () => {
    expect(isDataException(sqlState("57P01"))).toBe(false);
    expect(isConnectionFailure(sqlState("22021"))).toBe(false);
  });
});

describe("group commit during an outage", () => {
  it("a batch failing for want of a connection fails every caller at once, instead of one more attempt per item", async () => {
    const lost = sqlState("57P01");
    const writes: number[][] = [];
    const batcher = new GroupCommitBatcher<number>(
      async (items) => {
        writes.push(items);
        throw lost;
      },
      { maxBatch: 10, maxDelayMs: 1, maxConcurrent: 1 },
    );
    const results = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(results.map((result) => (result.status === "rejected" ? result.reason : "fulfilled"))).toEqual([
      lost,
      lost,
      lost,
    ]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it("any other failure is still retried item by item, so one bad item fails alone", async () => {
    const writes: number[][] = [];
    const batcher = new GroupCommitBatcher<number>(
      async (items) => {
        writes.push(items);
        if (items.includes(2)) throw sqlState("22P02");
      },
      { maxBatch: 10, maxDelayMs: 1, maxConcurrent: 1 },
    );
    const results = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(writes).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});

describe("retryTransientFailures: running a write again after a passing database failure", () => {
  /** Runs the policy over `failures` (one per try, then success); what came out and how many tries it took. */
  async function run(retry: TransientFailures, failures: unknown[]): Promise<{ outcome: unknown; tries: number }> {
    let tries = 0;
    const outcome = await retryTransientFailures(async () => {
      const failure = failures[tries++];
      if (failure !== undefined) throw failure;
      return "written";
    }, retry).catch((error: unknown) => error);
    return { outcome, tries };
  }

  it("40P01 deadlock_detected is isDeadlockOrSerializationFailure, as is 40001 serialization_failure; nothing else", () => {
    expect([sqlState("40P01"), sqlState("40001")].map(isDeadlockOrSerializationFailure)).toEqual([true, true]);
    expect(
      [sqlState("57P01"), sqlState("23505"), new Error("deadlock"), null].map(isDeadlockOrSerializationFailure),
    ).toEqual([false, false, false, false]);
  });

  it("a deadlock or serialization failure runs again, three tries in all; the third failure is re-thrown as it was", async () => {
    expect(await run({ deadlock: true }, [sqlState("40P01"), sqlState("40001")])).toEqual({
      outcome: "written",
      tries: 3,
    });
    const third = sqlState("40P01");
    const { outcome, tries } = await run({ deadlock: true }, [sqlState("40P01"), sqlState("40P01"), third]);
    expect(outcome).toBe(third);
    expect(tries).toBe(3);
  });

  it("a lost connection runs once more; a second loss is re-thrown", async () => {
    expect(await run({ lostConnection: true }, [sqlState("57P01")])).toEqual({ outcome: "written", tries: 2 });
    const second = new Error("Connection terminated unexpectedly");
    const { outcome, tries } = await run({ lostConnection: true }, [sqlState("57P01"), second]);
    expect(outcome).toBe(second);
    expect(tries).toBe(2);
  });

  it("a lost connection is retried only after the first try, a deadlock after any: direct ingest's policy", async () => {
    const both = { deadlock: true, lostConnection: true };
    expect(await run(both, [sqlState("57P01"), sqlState("40P01")])).toEqual({ outcome: "written", tries: 3 });
    const lostLater = sqlState("57P01");
    expect(await run(both, [sqlState("40P01"), lostLater])).toEqual({ outcome: lostLater, tries: 2 });
  });

  it("a failure the policy does not name is re-thrown at once", async () => {
    const lost = sqlState("57P01");
    expect(await run({ deadlock: true }, [lost])).toEqual({ outcome: lost, tries: 1 });
    const deadlock = sqlState("40P01");
    expect(await run({ lostConnection: true }, [deadlock])).toEqual({ outcome: deadlock, tries: 1 });
    const invalid = sqlState("22P02");
    expect(await run({ deadlock: true, lostConnection: true }, [invalid])).toEqual({ outcome: invalid, tries: 1 });
  });
});
