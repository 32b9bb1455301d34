import { z } from "zod";

const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, "must be lowercase letters, digits, '-' or '_' (at most 50)");
/** An organization, project, team or user named by numeric id or slug. */
export const reference = z.union([z.number().int().positive(), z.string().min(1)]);

export const createOrganizationInput = z.object({
  slug,
  name: z.string().min(1).max(200).optional(),
  plan: z.enum(["free", "team", "business", "enterprise"]).default("free"),
  samlConfigured: z.boolean().default(false),
  scimEnabled: z.boolean().default(false),
});

export const updateOrganizationInput = z.object({
  name: z.string().min(1).max(200).optional(),
  plan: z.enum(["free", "team", "business", "enterprise"]).optional(),
  samlConfigured: z.boolean().optional(),
  scimEnabled: z.boolean().optional(),
});

export const createProjectInput = z.object({
  organization: reference,
  slug,
  name: z.string().min(1).max(200).optional(),
  platform: z.string().max(64).nullable().default(null),
  features: z.array(z.string().min(1)).default([]),
  /** The DSN public key to use (32 hex); generated when absent. */
  publicKey: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "must be 32 lowercase hex characters")
    .optional(),
});

export const createUserInput = z.object({
  username: z.string().min(1).max(200),
  email: z.email().nullable().default(null),
  name: z.string().max(200).default(""),
});

export const addMemberInput = z.object({
  organization: reference,
  user: reference,
  role: z.enum(["owner", "manager", "admin", "member", "billing"]).default("member"),
});

export const createTeamInput = z.object({
  organization: reference,
  slug,
  name: z.string().min(1).max(200).optional(),
});

export const addTeamMemberInput = z.object({ organization: reference, team: reference, user: reference });

export type CreateOrganizationInput = z.input<typeof createOrganizationInput>;
export type UpdateOrganizationInput = z.input<typeof updateOrganizationInput>;
export type CreateProjectInput = z.input<typeof createProjectInput>;
export type CreateUserInput = z.input<typeof createUserInput>;
export type AddMemberInput = z.input<typeof addMemberInput>;
export type CreateTeamInput = z.input<typeof createTeamInput>;
export type AddTeamMemberInput = z.input<typeof addTeamMemberInput>;
export type Reference = z.infer<typeof reference>;

/** Sentry's key rate limit: at most `count` events per `window` seconds (a minute to a day); null removes it. */
export const rateLimitBody = z
  .object({
    window: z.number().int().min(1, "must be at least 1 second").max(86_400, "must be at most 86400 seconds (a day)"),
    count: z.number().int().min(0).max(2_147_483_647),
  })
  .nullable();

const keyName = z.string().trim().min(1, "must not be empty").max(64);

/** `POST …/keys/`: Sentry's body (the public key is generated; Faultline keys have no secret part). */
export const createKeyBody = z.object({ name: keyName.optional(), rateLimit: rateLimitBody.optional() });

/** `PUT …/keys/{key_id}/`: only what is given changes. */
export const updateKeyBody = z.object({
  name: keyName.optional(),
  isActive: z.boolean().optional(),
  rateLimit: rateLimitBody.optional(),
});

/** A slug of digits only would read as a numeric id in paths (`/projects/acme/123/`). */
const projectSlug = slug.refine(
  (value) => !/^\d+$/.test(value),
  "must contain a letter, '-' or '_' (digits alone read as an id)",
);

/** `POST /api/0/teams/{org}/{team}/projects/`: Sentry's body; the slug is derived from the name when absent. */
export const createProjectBody = z.object({
  name: z.string().trim().min(1, "must not be empty").max(200),
  slug: projectSlug.optional(),
  platform: z.string().max(64).nullable().optional(),
  default_rules: z.boolean().optional(),
});

/**
 * `PUT /api/0/projects/{org}/{project}/`: the project's own name, slug and platform. A project
 * never changes organization here (Sentry moves projects through a separate transfer flow), so
 * no field names one. Other fields are kept for the plugins' project settings to validate
 * (projects/project-settings.ts); a field nobody claims is ignored, as before.
 */
export const updateProjectBody = z.looseObject({
  name: z.string().trim().min(1, "must not be empty").max(200).optional(),
  slug: projectSlug.optional(),
  platform: z.string().max(64).nullable().optional(),
});

/** The organization `PUT`: its name, and the fields plugins contribute (checked by them). */
export const updateOrganizationBody = z.looseObject({
  name: z.string().trim().min(1, "must not be empty").max(200).optional(),
});

export type CreateKeyBody = z.output<typeof createKeyBody>;
export type UpdateKeyBody = z.output<typeof updateKeyBody>;
export type UpdateProjectBody = z.output<typeof updateProjectBody>;
export type RateLimitBody = z.output<typeof rateLimitBody>;
