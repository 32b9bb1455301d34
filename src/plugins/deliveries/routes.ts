import { z } from "zod";
import { Clock } from "../../container/tokens.js";
import { DestinationRegistryToken } from "../../delivery/tokens.js";
import { defineEndpoint } from "../../http/endpoint.js";
import { ApiError, notFound } from "../../http/errors.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../http/pagination.js";
import { deliveryFilterSchema } from "./schemas.js";
import { serializeAttempt, serializeDelivery } from "./serialize.js";
import { DeliveryRepositoryToken } from "./tokens.js";

const DELIVERIES = "/api/0/organizations/{organization_id_or_slug}/deliveries/";

export const listDeliveries = defineEndpoint({
  method: "GET",
  path: DELIVERIES,
  operationId: "deliveries.list",
  summary:
    "List the organization's webhook and service hook deliveries, newest first; `status=failed` is every delivery whose last attempt failed (retrying or given up)",
  scopes: ["org:read"],
  query: z.object({
    status: deliveryFilterSchema.optional(),
    per_page: pageSizeSchema,
    cursor: cursorSchema,
  }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(DeliveryRepositoryToken);
    const page = await keysetPage((bound) => repository.list(organization.id, query.status, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (delivery) => delivery.date_created.getTime(),
      idOf: (delivery) => Number(delivery.seq),
    });
    const destinations = container.resolve(DestinationRegistryToken);
    return pageReply(url, page, query.per_page, (delivery) => serializeDelivery(delivery, destinations));
  },
});

export const getDelivery = defineEndpoint({
  method: "GET",
  path: `${DELIVERIES}{delivery_id}/`,
  operationId: "deliveries.get",
  summary: "One delivery with every recorded attempt (status code, duration, error), oldest first",
  scopes: ["org:read"],
  handler: async ({ organization, params, container }) => {
    const repository = container.resolve(DeliveryRepositoryToken);
    const delivery = await repository.find(organization.id, params.delivery_id);
    if (!delivery) throw notFound();
    const attempts = await repository.attempts(delivery.id);
    const body = serializeDelivery(delivery, container.resolve(DestinationRegistryToken));
    return { body: { ...body, history: attempts.map((attempt) => serializeAttempt(attempt, body.target.url)) } };
  },
});

export const redeliver = defineEndpoint({
  method: "POST",
  path: `${DELIVERIES}{delivery_id}/redeliver/`,
  operationId: "deliveries.redeliver",
  summary: "Send a finished delivery again (same id and body, the destination's current URL and secret)",
  scopes: ["org:write"],
  handler: async ({ organization, params, container }) => {
    const repository = container.resolve(DeliveryRepositoryToken);
    const delivery = await repository.find(organization.id, params.delivery_id);
    if (!delivery) throw notFound();
    if (delivery.status === "pending")
      throw new ApiError(409, "This delivery is still pending: it will be sent without being asked");
    const target = await repository.currentTarget(delivery);
    if (!target) throw new ApiError(409, "The destination of this delivery no longer exists");
    // The worker polls for due rows (every second by default); no wake-up is needed for correctness.
    const updated = await repository.redeliver(organization.id, delivery.id, target, container.resolve(Clock).now());
    if (!updated) throw new ApiError(409, "This delivery is still pending: it will be sent without being asked");
    // The names of the destination come from the read above: the update returns the row alone.
    return {
      status: 202,
      body: serializeDelivery({ ...delivery, ...updated }, container.resolve(DestinationRegistryToken)),
    };
  },
});
