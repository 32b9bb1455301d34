import { z } from "zod";

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, "must be lowercase letters, digits, '-' or '_' (at most 50)");
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
  publicKey: z.string().regex(/^[0-9a-f]{32}$/, "must be 32 lowercase hex characters").optional(),
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
