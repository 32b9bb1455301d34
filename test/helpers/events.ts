import type { Faultline, FaultlineApi } from "../../src/index.js";
import { EventSinkToken } from "../../src/plugins/issues/index.js";

/** A minimal SDK-like error event; `overrides` replace top-level fields. */
export function errorEvent(overrides: Record<string, unknown> = {}, frames: Array<Record<string, unknown>> = [{ filename: "app.js", function: "handler", lineno: 3, in_app: true }]) {
  return {
    platform: "node",
    level: "error",
    exception: { values: [{ type: "TypeError", value: "x is undefined", stacktrace: { frames } }] },
    ...overrides,
  };
}

/** Sends events straight to the ingest sink (grouping, storage, transitions) and waits for commit. */
export function captureFor(faultline: Faultline<FaultlineApi>, project: { id: string | number; organizationId: string | number }) {
  return (event: Record<string, unknown>, receivedAt?: Date) =>
    faultline.container
      .resolve(EventSinkToken)
      .capture({ id: Number(project.id), organizationId: Number(project.organizationId), platform: "node" }, event, receivedAt ? { receivedAt } : {});
}
