import { z } from "zod";

/**
 * The listing's `status` filter. The stored statuses (`pending`, `delivered`, `cancelled`) filter
 * as they are; `failed` is every delivery whose last attempt failed — retrying or given up — so a
 * destination that is down shows from its first failure; `retrying` is the part with a retry
 * scheduled, `dead` the part given up (no retry left, or an answer that is not retried).
 */
export const deliveryFilterSchema = z.enum(["pending", "delivered", "failed", "cancelled", "retrying", "dead"]);
export type DeliveryFilter = z.infer<typeof deliveryFilterSchema>;

/** Where a delivery stands, as the listing shows it (`state`), one value per row. */
export const deliveryStateSchema = z.enum(["queued", "retrying", "delivered", "dead", "cancelled"]);
export type DeliveryState = z.infer<typeof deliveryStateSchema>;
