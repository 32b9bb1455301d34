import { registerFactory } from "../../container/container.js";
import { Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { DeliveryRepository } from "./repository.js";
import { getDelivery, listDeliveries, redeliver } from "./routes.js";
import { DeliveryRepositoryToken } from "./tokens.js";

/**
 * Inspection and manual redelivery of an organization's outgoing webhooks (docs/webhooks.md, "The
 * delivery log").
 */
export const deliveriesPlugin = definePlugin({
  id: "deliveries",
  dependencies: ["organizations"],
  register(container) {
    registerFactory(container, DeliveryRepositoryToken, (c) => new DeliveryRepository(() => c.resolve(Db)));
  },
  endpoints: [listDeliveries, getDelivery, redeliver],
});
