import type { EndpointsById } from "../plugin/api-of.js";
import { alertsPlugin } from "./alerts/index.js";
import { apiTokensPlugin } from "./api-tokens/index.js";
import { cronsPlugin } from "./crons/index.js";
import { dataScrubbingPlugin } from "./data-scrubbing/index.js";
import { deliveriesPlugin } from "./deliveries/index.js";
import { eventStorePlugin } from "./event-store/index.js";
import { externalIssuesPlugin } from "./external-issues/index.js";
import { inboundFiltersPlugin } from "./inbound-filters/index.js";
import { ingestPlugin } from "./ingest/index.js";
import { installationsPlugin } from "./installations/index.js";
import { issuesPlugin } from "./issues/index.js";
import { notificationsPlugin } from "./notifications/index.js";
import { organizationsPlugin } from "./organizations/index.js";
import { quotasPlugin } from "./quotas/index.js";
import { releasesPlugin } from "./releases/index.js";
import { releaseHealthPlugin } from "./release-health/index.js";
import { openApiPlugin } from "./openapi/index.js";
import { scimPlugin } from "./scim/index.js";
import { serviceHooksPlugin } from "./service-hooks/index.js";
import { userFeedbackPlugin } from "./user-feedback/index.js";
import { webhooksPlugin } from "./webhooks/index.js";

/** The first-party feature areas every instance has. */
export const firstPartyPlugins = [
  organizationsPlugin,
  apiTokensPlugin,
  installationsPlugin,
  eventStorePlugin,
  issuesPlugin,
  notificationsPlugin,
  releasesPlugin,
  inboundFiltersPlugin,
  quotasPlugin,
  dataScrubbingPlugin,
  ingestPlugin,
  serviceHooksPlugin,
  webhooksPlugin,
  userFeedbackPlugin,
  scimPlugin,
  externalIssuesPlugin,
  deliveriesPlugin,
  alertsPlugin,
  cronsPlugin,
  releaseHealthPlugin,
  openApiPlugin,
] as const;

/** Every first-party endpoint by operation id (what `faultline.api.<area>.<operation>` is typed from), computed from the plugins' `endpoints`. */
export type FirstPartyEndpoints = EndpointsById<typeof firstPartyPlugins>;
