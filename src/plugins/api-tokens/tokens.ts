import type { InjectionToken } from "tsyringe";
import type { TokenService } from "./service.js";

export const TokenServiceToken: InjectionToken<TokenService> = Symbol("faultline.TokenService");
