import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript example without type declarations
import { resolutionLogPlugin } from "../../examples/plugins/resolution-log.mjs";
import type { FaultlinePlugin } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { serveFaultline, type RunningServer } from "../helpers/server.js";

let instance: TestInstance<[FaultlinePlugin]>;
let server: RunningServer;
let seed: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  instance = await createTestInstance({
    announce: false,
    worker: false,
    plugins: [resolutionLogPlugin as FaultlinePlugin],
  });
  seed = await seedOrganization(instance.faultline, "acme");
  server = await serveFaultline(instance.faultline, "/faultline");
});
afterAll(async () => {
  await server?.close();
  await instance?.close();
});

it("examples/plugins: its migration ran, its subscriber records a resolution in the same transaction, its endpoint lists it", async () => {
  expect((await instance.faultline.migrate()).applied).toEqual([]); // already applied on init, under its own table
  await captureFor(instance.faultline, { id: seed.project.id, organizationId: seed.organization.id })(errorEvent());
  const headers = { Authorization: `Bearer ${seed.allScopesToken}`, "Content-Type": "application/json" };
  const [issue] = (await (
    await fetch(`${server.url}/faultline/api/0/organizations/acme/issues/?query=`, { headers })
  ).json()) as Array<{ id: string; shortId: string }>;
  const resolved = await fetch(`${server.url}/faultline/api/0/organizations/acme/issues/${issue?.id}/`, {
    method: "PUT",
    headers,
    body: '{"status":"resolved"}',
  });
  expect(resolved.status).toBe(200);

  const list = await fetch(`${server.url}/faultline/api/0/organizations/acme/resolutions/`, { headers });
  expect(list.status).toBe(200);
  expect(await list.json()).toEqual([
    { shortId: issue?.shortId, resolvedBy: "Owner", resolution: "now", resolvedAt: expect.any(String) },
  ]);
  // The same endpoint in-process, and its scope enforced the same way.
  const reader = await instance.faultline.call(
    "resolutions.list",
    { params: { organization_id_or_slug: "acme" } },
    { token: seed.eventReadToken },
  );
  expect(reader.body).toHaveLength(1);
  await expect(
    instance.faultline.call(
      "resolutions.list",
      { params: { organization_id_or_slug: "acme" } },
      { token: seed.orgReadToken },
    ),
  ).rejects.toMatchObject({ status: 403 });
});
