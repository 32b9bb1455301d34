import type { InjectionToken } from "tsyringe";
import type { SessionBuffer } from "./buffer.js";

/** This instance's session counts waiting for their flush (see SessionBuffer). */
export const SessionBufferToken: InjectionToken<SessionBuffer> = Symbol("faultline.SessionBuffer");
