import { tokens } from "../../src/index.js";
import { EventStoreToken } from "../../src/plugins/event-store/index.js";
import { createTestInstance } from "../../src/testing/index.js";
import { eventStoreConformance } from "../helpers/event-store-conformance.js";
import { seedOrganization } from "../helpers/seed.js";

/**
 * The event store's interface, exercised directly (not through HTTP) on the PostgreSQL/PGlite
 * implementation the instance registers: the conformance suite another implementation would run.
 */
eventStoreConformance("PostgreSQL", async () => {
  const instance = await createTestInstance({ worker: false });
  const { faultline } = instance;
  const acme = await seedOrganization(faultline, "acme");
  const globex = await seedOrganization(faultline, "globex");
  const sibling = await faultline.api.projects.create({ organization: "acme", slug: "api", platform: "node" });
  const ref = (project: { id: string | number }, organization: { id: string | number }) => ({
    id: Number(project.id),
    organizationId: Number(organization.id),
    platform: "node",
  });
  return {
    store: faultline.container.resolve(EventStoreToken),
    db: faultline.container.resolve(tokens.Db),
    project: ref(acme.project, acme.organization),
    sibling: ref(sibling, acme.organization),
    stranger: ref(globex.project, globex.organization),
    close: () => instance.close(),
  };
});
