import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { InstallationRepository } from "./repository.js";
import { listInstallations } from "./routes.js";
import type { CreateAppInput, InstallAppInput } from "./schemas.js";
import { InstallationService } from "./service.js";
import { InstallationRepositoryToken, InstallationServiceToken } from "./tokens.js";

/** Apps and installations: the seed's installation list, and provisioning for hosts. */
export const installationsPlugin = definePlugin({
  id: "installations",
  dependencies: ["organizations"],
  register(container) {
    registerFactory(container, InstallationRepositoryToken, (c) => new InstallationRepository(() => c.resolve(Db)));
    registerFactory(
      container,
      InstallationServiceToken,
      (c) =>
        new InstallationService(
          () => c.resolve(Db),
          c.resolve(InstallationRepositoryToken),
          c.resolve(OrganizationServiceToken),
          c.resolve(EventBus),
          c.resolve(Clock),
        ),
    );
  },
  endpoints: [listInstallations],
  api: (container) => ({
    apps: {
      /** Creates an app; `clientSecret` is in this result only. Internal apps are installed in their owner. */
      create: (input: CreateAppInput) => container.resolve(InstallationServiceToken).createApp(input),
    },
    installations: {
      install: (input: InstallAppInput) => container.resolve(InstallationServiceToken).install(input),
    },
  }),
});

export { InstallationServiceToken } from "./tokens.js";
