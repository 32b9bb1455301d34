import type { InjectionToken } from "tsyringe";
import type { CheckInIntake } from "./check-ins/intake.js";
import type { CheckInRecorder } from "./check-ins/record.js";
import type { MonitorRepository } from "./monitors/repository.js";
import type { MonitorService } from "./monitors/service.js";

export const MonitorRepositoryToken: InjectionToken<MonitorRepository> = Symbol("faultline.crons.MonitorRepository");
export const MonitorServiceToken: InjectionToken<MonitorService> = Symbol("faultline.crons.MonitorService");
export const CheckInRecorderToken: InjectionToken<CheckInRecorder> = Symbol("faultline.crons.CheckInRecorder");
export const CheckInIntakeToken: InjectionToken<CheckInIntake> = Symbol("faultline.crons.CheckInIntake");
