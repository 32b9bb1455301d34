import { z } from "zod";
import { scopeSchema } from "../../../auth/scopes.js";

export const APP_EVENT_CATEGORIES = [
  "issue",
  "error",
  "comment",
  "installation",
  "metric_alert",
  "event_alert",
  "feedback",
] as const;

const reference = z.union([z.number().int().positive(), z.string().min(1).max(200)]);
const appSlug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,49}$/, "must be lowercase letters, digits or '-' (at most 50)");
const webhookUrl = z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).max(2000);
/** Duplicates are dropped: a set, stored as an array. */
const events = z
  .array(z.enum(APP_EVENT_CATEGORIES))
  .max(APP_EVENT_CATEGORIES.length * 2)
  .transform((list) => [...new Set(list)]);
const scopeList = z.array(scopeSchema).max(50);
const dedupe = <T>(list: T[]): T[] => [...new Set(list)];
const scopes = scopeList.transform(dedupe);

/**
 * UI components for the host's UI (Sentry's `schema`): `{elements: [{type, …}]}`. Only the
 * element `type` is interpreted (the components listing names it); the rest is stored as sent.
 */
const uiSchema = z.looseObject({
  elements: z.array(z.looseObject({ type: z.string().min(1).max(64) })).max(50),
});

export const createAppInput = z.object({
  organization: reference,
  name: z.string().min(1).max(200),
  slug: appSlug.optional(),
  isInternal: z.boolean().default(false),
  webhookUrl: webhookUrl.nullable().default(null),
  events: events.default([]),
  scopes: scopes.default([]),
  schema: uiSchema.nullable().default(null),
  /** Also sign webhooks under Sentry's header names (`Sentry-Hook-Signature`…), for receivers written against Sentry. */
  sentryHookHeaders: z.boolean().default(false),
});

/** `PUT /api/0/svc-apps/{slug}/`: every field optional; absent fields are unchanged. */
export const updateAppInput = z.object({
  name: z.string().min(1).max(200).optional(),
  webhookUrl: webhookUrl.nullable().optional(),
  events: events.optional(),
  scopes: scopes.optional(),
  schema: uiSchema.nullable().optional(),
  sentryHookHeaders: z.boolean().optional(),
});

export const installAppInput = z.object({
  organization: reference,
  app: z.string().min(1).max(200),
});

/** `POST /api/0/svc-app-installations/{uuid}/approve-scopes/`: the pending scopes the organization approves, named. */
export const approveScopesInput = z.object({
  scopes: scopeList.min(1, "name at least one scope to approve").transform(dedupe),
});

/** `POST /api/0/organizations/{org}/svc-app-installations/`. */
export const installAppBody = z.object({ slug: z.string().min(1).max(200) });

const clientCredentials = {
  client_id: z.string().min(1).max(200),
  client_secret: z.string().min(1).max(200),
};

/** The OAuth exchange (Sentry's shape): a one-time grant code, or a refresh token. */
export const authorizationBody = z.discriminatedUnion(
  "grant_type",
  [
    z.object({ grant_type: z.literal("authorization_code"), code: z.string().min(1).max(200), ...clientCredentials }),
    z.object({
      grant_type: z.literal("refresh_token"),
      refresh_token: z.string().min(1).max(200),
      ...clientCredentials,
    }),
  ],
  { error: 'must be "authorization_code" or "refresh_token"' },
);

export const requestLogQuery = z.object({
  eventType: z
    .string()
    .regex(/^[a-z_]+\.[a-z_]+$/, "must be an event type like issue.created")
    .optional(),
  errorsOnly: z
    .enum(["true", "false", "1", "0"])
    .optional()
    .transform((value) => value === "true" || value === "1"),
});

export const componentsQuery = z.object({
  filter: z.string().min(1).max(64).optional(),
});

export type CreateAppInput = z.input<typeof createAppInput>;
export type UpdateAppInput = z.input<typeof updateAppInput>;
export type InstallAppInput = z.input<typeof installAppInput>;
export type ApproveScopesInput = z.input<typeof approveScopesInput>;
export type AuthorizationBody = z.output<typeof authorizationBody>;
