import { createFaultline } from "faultline";
import { getOrCreateFaultline } from "faultline/next";

/** One instance per server process, kept across hot reloads (`next dev` re-evaluates this module). */
export const faultline = getOrCreateFaultline("next-host", () =>
  createFaultline({ database: process.env.DATABASE_URL, basePath: "/api/faultline" }),
);
