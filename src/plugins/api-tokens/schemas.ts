import { z } from "zod";
import { scopeSchema } from "../../auth/scopes.js";

export const scopeList = z.array(scopeSchema).min(1, "at least one scope is required");

const futureDate = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .refine((date) => date.getTime() > Date.now(), "must be in the future");

/** `POST /api/0/api-tokens/` body. */
export const createTokenBody = z.object({
  name: z.string().max(255).nullable().optional(),
  scopes: scopeList,
  expiresAt: futureDate.nullable().optional(),
});

/** `faultline.api.tokens.create` input: a user token, or an organization / SCIM token. */
export const createTokenInput = z
  .object({
    kind: z.enum(["user", "organization", "scim"]).optional(),
    user: z.union([z.number().int().positive(), z.string().min(1)]).optional(),
    organization: z.union([z.number().int().positive(), z.string().min(1)]).optional(),
    name: z.string().max(255).nullable().default(null),
    scopes: z.array(scopeSchema),
    expiresAt: z.date().nullable().default(null),
    /** Exact plaintext to use (seeding a demo or a fixture); must have the kind's prefix. */
    token: z.string().optional(),
  })
  .refine((v) => (v.user === undefined) !== (v.organization === undefined), {
    message: "give exactly one of user or organization",
    path: ["user"],
  });

export type CreateTokenInput = z.input<typeof createTokenInput>;
