import type { Faultline, FaultlineApi } from "../../src/index.js";
import { SCOPES } from "../../src/index.js";

/** An organization with an owner, a member and tokens of several shapes. */
export async function seedOrganization(faultline: Faultline<FaultlineApi>, slug = "acme") {
  const organization = await faultline.api.organizations.create({ slug, name: `${slug} Inc`, plan: "business" });
  const owner = await faultline.api.users.create({
    username: `${slug}-owner`,
    email: `owner@${slug}.test`,
    name: "Owner",
  });
  await faultline.api.members.add({ organization: slug, user: owner.id, role: "owner" });
  const project = await faultline.api.projects.create({ organization: slug, slug: "web", platform: "node" });
  const token = async (scopes: string[]) =>
    (await faultline.api.tokens.create({ user: owner.id, scopes: scopes as never })).token;
  return {
    organization,
    owner,
    project,
    allScopesToken: await token([...SCOPES]),
    orgReadToken: await token(["org:read"]),
    eventReadToken: await token(["event:read"]),
    orgBoundToken: (await faultline.api.tokens.create({ organization: slug, scopes: ["org:read", "project:read"] }))
      .token,
  };
}
