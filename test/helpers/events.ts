import { type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { IngestSinkToken } from "../../src/plugins/ingest/tokens.js";
import { waitFor } from "./wait.js";

/** A minimal SDK-like error event; `overrides` replace top-level fields. */
export function errorEvent(
  overrides: Record<string, unknown> = {},
  frames: Array<Record<string, unknown>> = [{ filename: "app.js", function: "handler", lineno: 3, in_app: true }],
) {
  return {
    platform: "node",
    level: "error",
    exception: { values: [{ type: "TypeError", value: "x is undefined", stacktrace: { frames } }] },
    ...overrides,
  };
}

/**
 * Sends events the way the ingest endpoints hand them over (to the queue in queued mode, to
 * grouping and storage in direct mode) and resolves once they are grouped and stored.
 */
export function captureFor(
  faultline: Faultline<FaultlineApi>,
  project: { id: string | number; organizationId: string | number },
) {
  return async (event: Record<string, unknown>, receivedAt?: Date) => {
    const ref = { id: Number(project.id), organizationId: Number(project.organizationId), platform: "node" };
    const result = await faultline.container
      .resolve(IngestSinkToken)
      .capture(ref, event, receivedAt ? { receivedAt } : {});
    await digestQueued(faultline);
    return result;
  };
}

/**
 * Waits until the ingest queue is empty, digesting it here too: a worker running in the background
 * may hold a batch, and its rows leave the queue only when that batch committed. A no-op in direct mode.
 */
export async function digestQueued(faultline: Faultline<FaultlineApi>): Promise<void> {
  const db = faultline.container.resolve(tokens.Db);
  await waitFor(
    async () => {
      await faultline.worker.runDue("ingest.digest");
      const { queued } = await db
        .selectFrom("ingest_queue")
        .select((eb) => eb.fn.countAll<string>().as("queued"))
        .executeTakeFirstOrThrow();
      return Number(queued) === 0;
    },
    10_000,
    "an empty ingest queue",
  );
}
