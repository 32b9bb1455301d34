import { registerFactory } from "../../container/container.js";
import { DestinationRegistryToken, OutboxToken } from "../../delivery/tokens.js";
import type { DomainEvent, DomainEventName } from "../../events/event-bus.js";
import { definePlugin, type PluginEventHandler } from "../../plugin/plugin.js";
import type { IssueSnapshot } from "../issues/index.js";
import { type LinkContext, OrganizationLinksToken } from "../organizations/index.js";
import { type AppWebhookCategory, AppWebhookDispatcher } from "./dispatcher.js";
import { appWebhookDestination } from "./destination.js";
import { commentData, errorData, issueData } from "./payloads.js";
import { AppWebhookDispatcherToken } from "./tokens.js";

/** A subscriber that sends `category` webhooks with the data `build` makes from the event. */
function forward<N extends DomainEventName>(
  category: AppWebhookCategory,
  build: (event: DomainEvent<N>, links: LinkContext) => unknown,
  onlyInstallation?: (event: DomainEvent<N>) => string,
): PluginEventHandler<N> {
  return async (event, scope, { container }) => {
    const links = await container.resolve(OrganizationLinksToken).forOrganization(scope, event.organizationId);
    await container.resolve(AppWebhookDispatcherToken).dispatch(scope, {
      organizationId: event.organizationId,
      category,
      eventType: event.name,
      actor: event.actor,
      data: () => build(event, links),
      onlyInstallation: onlyInstallation?.(event),
    });
  };
}

/** `data.installation`; the grant `code` only appears while it is unused (installation.created). */
function installationData(
  event: DomainEvent<"installation.created" | "installation.deleted" | "installation.scopes_approved">,
  links: LinkContext,
) {
  const { app, installation } = event.payload;
  return {
    installation: {
      uuid: installation.uuid,
      app: { uuid: app.uuid, slug: app.slug },
      organization: { slug: links.organizationSlug },
      status: installation.status,
      ...(event.name === "installation.created" && installation.code ? { code: installation.code } : {}),
    },
  };
}

/**
 * The organization approved scopes the app asked for: its tokens carry `scopes` from now on
 * (existing ones included, so no new exchange is needed). Only the app is told: the request
 * itself came from its owner, so `installation.scopes_requested` is not sent to it.
 */
function scopesApprovedData(event: DomainEvent<"installation.scopes_approved">, links: LinkContext) {
  return {
    ...installationData(event, links),
    scopes: event.payload.scopes,
    approved_scopes: event.payload.approvedScopes,
  };
}

const issueOnly = (event: { payload: { issue: IssueSnapshot } }, links: LinkContext) => ({
  issue: issueData(event.payload.issue, links),
});

/** Signed app webhooks for every issue, error, comment and installation event of an organization. */
export const webhooksPlugin = definePlugin({
  id: "webhooks",
  dependencies: ["organizations", "installations", "issues"],
  register(container) {
    registerFactory(container, AppWebhookDispatcherToken, (c) => new AppWebhookDispatcher(c.resolve(OutboxToken)));
  },
  init: ({ container }) => container.resolve(DestinationRegistryToken).register(appWebhookDestination),
  on: {
    "issue.created": forward("issue", issueOnly),
    "issue.ignored": forward("issue", issueOnly),
    "issue.unresolved": forward("issue", issueOnly),
    "issue.resolved": forward("issue", (event, links) => ({
      issue: issueData(event.payload.issue, links),
      resolution_type: event.payload.resolutionType,
    })),
    "issue.assigned": forward("issue", (event, links) => ({
      issue: issueData(event.payload.issue, links),
      assignee: event.payload.assignee,
    })),
    // Faultline's own action (Sentry sends no webhook for a merge): the parent after the merge, and the issues merged into it.
    "issue.merged": forward("issue", (event, links) => ({
      issue: issueData(event.payload.issue, links),
      children: event.payload.children.map((child) => ({ id: String(child.id), shortId: child.shortId })),
    })),
    "error.created": forward("error", (event, links) => ({
      error: errorData(event.payload.issue, event.payload.event, links),
    })),
    "comment.created": forward("comment", (event) => commentData(event.payload.issue, event.payload.comment)),
    "comment.updated": forward("comment", (event) => commentData(event.payload.issue, event.payload.comment)),
    "comment.deleted": forward("comment", (event) => commentData(event.payload.issue, event.payload.comment)),
    "installation.created": forward("installation", installationData, (event) => event.payload.installation.uuid),
    "installation.deleted": forward("installation", installationData, (event) => event.payload.installation.uuid),
    "installation.scopes_approved": forward(
      "installation",
      scopesApprovedData,
      (event) => event.payload.installation.uuid,
    ),
  },
});

export { AppWebhookDispatcherToken, type AppWebhookSender } from "./tokens.js";
/** The `data` of an `error` webhook, which an `event_alert` webhook carries too. */
export { errorData } from "./payloads.js";
