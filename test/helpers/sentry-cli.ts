import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const BINARY = fileURLToPath(new URL("../../node_modules/.bin/sentry-cli", import.meta.url));

/** Runs the real sentry-cli against a Faultline server, configured only through its environment. */
export async function sentryCli(
  args: string[],
  env: { url: string; token: string; org: string; project: string; dsn?: string },
  cwd?: string,
) {
  const { stdout, stderr } = await run(BINARY, args, {
    cwd,
    timeout: 60_000,
    env: {
      ...({} as NodeJS.ProcessEnv),
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SENTRY_URL: env.url,
      SENTRY_AUTH_TOKEN: env.token,
      SENTRY_ORG: env.org,
      SENTRY_PROJECT: env.project,
      SENTRY_LOG_LEVEL: "warn",
      SENTRY_DISABLE_UPDATE_CHECK: "true",
      SENTRYCLI_SKIP_DOWNLOAD: "1",
      // Commands that send to ingest (`monitors run`) take the project's DSN.
      ...(env.dsn && { SENTRY_DSN: env.dsn }),
    },
  });
  return { stdout, stderr };
}
