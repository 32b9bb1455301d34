// Shared by the Express and Fastify example hosts.
import { SCOPES } from "faultline";

/**
 * Development seed: organization "demo", project "web", an owner's token with every scope
 * (`token` fixes its value). Safe on every start. A real host provisions from its own code.
 */
export async function seedDemo(faultline, token) {
  const { api } = faultline;
  if (await api.organizations.get("demo")) return { token };
  await api.organizations.create({ slug: "demo", name: "Demo" });
  const owner = await api.users.create({ username: "demo-owner", email: "owner@demo.test" });
  await api.members.add({ organization: "demo", user: owner.id, role: "owner" });
  await api.projects.create({ organization: "demo", slug: "web", platform: "node" });
  return { token: (await api.tokens.create({ user: owner.id, scopes: [...SCOPES], name: "example", token })).token };
}
