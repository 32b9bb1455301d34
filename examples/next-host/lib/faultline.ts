import { createFaultline, SCOPES } from "faultline";
import { getOrCreateFaultline } from "faultline/next";

/** One instance per server process, kept on globalThis across hot reloads (`next dev` re-evaluates modules). */
export const faultline = getOrCreateFaultline("main", () =>
  // Unset → a throwaway in-memory PGlite for trying the example; an app of yours leaves `database`
  // out to get DATABASE_URL or a data directory on disk (docs/storage.md).
  createFaultline({ database: process.env.DATABASE_URL || "memory://" }),
);

/**
 * Development seed, run once at start-up by instrumentation.ts: organization "demo", project "web",
 * and an owner's token (FAULTLINE_TOKEN fixes its value). Your app provisions from its own code instead.
 */
export async function seedDemo(): Promise<string | undefined> {
  const { api } = faultline;
  if (await api.organizations.get("demo")) return process.env.FAULTLINE_TOKEN;
  await api.organizations.create({ slug: "demo", name: "Demo" });
  const owner = await api.users.create({ username: "owner", email: "owner@demo.test" });
  await api.members.add({ organization: "demo", user: owner.id, role: "owner" });
  await api.projects.create({ organization: "demo", slug: "web", platform: "node" });
  const { token } = await api.tokens.create({ user: owner.id, scopes: [...SCOPES], token: process.env.FAULTLINE_TOKEN });
  return token;
}
