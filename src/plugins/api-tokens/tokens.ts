import type { InjectionToken } from "tsyringe";
import type { TokenService } from "./service.js";

/** What other plugins use of the token service: minting tokens of their own kind (SCIM, installations). */
export type TokenIssuer = Pick<TokenService, "issue" | "prepare">;

export const TokenServiceToken: InjectionToken<TokenService> = Symbol("faultline.TokenService");
