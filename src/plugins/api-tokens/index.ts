import { registerFactory } from "../../container/container.js";
import { Clock, Db, TokenCache } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { TokenRepository } from "./repository.js";
import { createToken, deleteToken, listTokens } from "./routes.js";
import type { CreateTokenInput } from "./schemas.js";
import { TokenService } from "./service.js";
import { TokenServiceToken } from "./tokens.js";

/** API tokens: `/api/0/api-tokens/` for users, `faultline.api.tokens` for hosts. */
export const apiTokensPlugin = definePlugin({
  id: "api-tokens",
  dependencies: ["organizations"],
  register(container) {
    registerFactory(
      container,
      TokenServiceToken,
      (c) =>
        new TokenService(
          new TokenRepository(() => c.resolve(Db)),
          c.resolve(OrganizationServiceToken),
          c.resolve(Clock),
          c.resolve(TokenCache),
        ),
    );
  },
  endpoints: [listTokens, createToken, deleteToken],
  api: (container) => ({
    tokens: {
      /** Issues a token; the plaintext `token` is in this result only. */
      create: (input: CreateTokenInput) => container.resolve(TokenServiceToken).create(input),
    },
  }),
});

export { type TokenIssuer, TokenServiceToken } from "./tokens.js";
