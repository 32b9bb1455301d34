import * as Sentry from "@sentry/node";
import { expect } from "vitest";
import { dsnOf, type MountedTarget } from "./suite.js";

/** Sends one exception with the real @sentry/node SDK to `dsn`; resolves to its event id once flushed. */
export async function captureWithSdk(dsn: string, message: string): Promise<string> {
  Sentry.init({ dsn, defaultIntegrations: false, release: "example@1.0.0", environment: "test" });
  try {
    const eventId = Sentry.captureException(new Error(message));
    expect(await Sentry.flush(10_000)).toBe(true);
    return eventId;
  } finally {
    await Sentry.close(2000);
  }
}

/**
 * The example-host check: a real SDK event through the mounted prefix (DSN from the keys endpoint),
 * then the issue listed over HTTP through the same prefix with Link URLs that carry it.
 */
export async function sdkRoundTrip(target: MountedTarget): Promise<void> {
  const dsn = await dsnOf(target);
  expect(new URL(dsn).pathname).toMatch(new RegExp(`^${target.prefix}/\\d+$`));
  const message = `example host ${target.prefix} ${Date.now()}`;
  await captureWithSdk(dsn, message);
  await target.digest?.();
  const headers = { Authorization: `Bearer ${target.token}` };
  const url = `${target.origin}${target.prefix}/api/0/organizations/${target.organization}/issues/?query=`;
  let titles: string[] = [];
  let link = "";
  for (let attempt = 0; attempt < 50 && !titles.includes(`Error: ${message}`); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await fetch(url, { headers });
    expect(response.status).toBe(200);
    link = response.headers.get("link") ?? "";
    titles = ((await response.json()) as Array<{ title: string }>).map((issue) => issue.title);
  }
  expect(titles).toContain(`Error: ${message}`);
  for (const [, href] of link.matchAll(/<([^>]+)>/g))
    expect(href).toMatch(new RegExp(`^${target.origin}${target.prefix}/api/0/organizations/`));
}
