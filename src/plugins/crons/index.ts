import { registerFactory } from "../../container/container.js";
import { Clock, Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EnvelopeItemHandlerToken } from "../ingest/index.js";
import { IssueReporterToken } from "../issues/index.js";
import { CheckInIntake } from "./check-ins/intake.js";
import { CheckInRecorder } from "./check-ins/record.js";
import { checkInEndpoints } from "./check-ins/routes.js";
import { cronsMigrations } from "./migrations.js";
import { MonitorRepository } from "./monitors/repository.js";
import { monitorEndpoints } from "./monitors/routes.js";
import { MonitorService } from "./monitors/service.js";
import { missedCheckInsTask, timedOutCheckInsTask } from "./tasks.js";
import { CheckInIntakeToken, CheckInRecorderToken, MonitorRepositoryToken, MonitorServiceToken } from "./tokens.js";

/**
 * Cron monitors, Sentry's "Crons" (docs/crons.md): monitors created from SDKs' check-ins or over
 * the API, their check-ins per environment, missed and timed-out check-ins found by the worker,
 * and a monitor issue (through the issues plugin's {@link IssueReporter}) after consecutive failures.
 */
export const cronsPlugin = definePlugin({
  id: "crons",
  dependencies: ["organizations", "issues", "ingest"],
  migrations: cronsMigrations,
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, MonitorRepositoryToken, () => new MonitorRepository(db));
    registerFactory(
      container,
      MonitorServiceToken,
      (c) => new MonitorService(db, c.resolve(MonitorRepositoryToken), c.resolve(Clock)),
    );
    registerFactory(container, CheckInRecorderToken, (c) => new CheckInRecorder(() => c.resolve(IssueReporterToken)));
    registerFactory(container, CheckInIntakeToken, (c) => new CheckInIntake(db, c.resolve(CheckInRecorderToken)));
    registerFactory(container, EnvelopeItemHandlerToken, (c) => c.resolve(CheckInIntakeToken).envelopeHandler());
  },
  endpoints: [...monitorEndpoints, ...checkInEndpoints],
  tasks: [missedCheckInsTask, timedOutCheckInsTask],
});

export type { CronCheckIn, CronMonitor, CronMonitorEnvironment } from "./tables.js";
