import { z } from "zod";
import type { Principal } from "../../auth/principal.js";
import { defineEndpoint } from "../../http/endpoint.js";
import { badRequest } from "../../http/errors.js";
import { createTokenBody } from "./schemas.js";
import { TokenServiceToken } from "./tokens.js";

/** Only user endpoints reach here (`auth: "user"`), so the user id is set. */
const userIdOf = (principal: Principal | null) => principal?.userId as number;

export const listTokens = defineEndpoint({
  method: "GET",
  path: "/api/0/api-tokens/",
  operationId: "apiTokens.list",
  summary: "List the calling user's API tokens",
  auth: "user",
  handler: async ({ principal, container }) => ({
    body: await container.resolve(TokenServiceToken).listForUser(userIdOf(principal)),
  }),
});

export const createToken = defineEndpoint({
  method: "POST",
  path: "/api/0/api-tokens/",
  operationId: "apiTokens.create",
  summary: "Create an API token for the calling user (shown once)",
  auth: "user",
  body: createTokenBody,
  handler: async ({ principal, body, container }) => {
    const exceeding = body.scopes.filter((scope) => !principal?.scopes.has(scope as never));
    if (exceeding.length > 0) {
      const message = `Requested scopes exceed yours: ${exceeding.join(", ")}`;
      throw badRequest(message, { scopes: [message] });
    }
    const token = await container.resolve(TokenServiceToken).issue({
      kind: "user",
      userId: userIdOf(principal),
      organizationId: null,
      name: body.name ?? null,
      scopes: body.scopes,
      expiresAt: body.expiresAt ?? null,
    });
    return { status: 201, body: token };
  },
});

export const deleteToken = defineEndpoint({
  method: "DELETE",
  path: "/api/0/api-tokens/{token_id}/",
  operationId: "apiTokens.delete",
  summary: "Revoke one of the calling user's API tokens",
  auth: "user",
  params: z.object({
    token_id: z
      .string()
      .regex(/^\d{1,9}$/, "must be a numeric id")
      .transform(Number),
  }),
  handler: async ({ principal, params, container }) => {
    await container.resolve(TokenServiceToken).revokeForUser(userIdOf(principal), params.token_id);
    return { status: 204 };
  },
});
