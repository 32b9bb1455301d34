import { expect, it } from "vitest";
import "reflect-metadata";
import { ingestPlugin } from "../../src/plugins/ingest/index.js";
import { createTestInstance } from "../../src/testing/index.js";
import { serveFaultline } from "../helpers/server.js";

it("413 over 20 MiB compressed", async () => {
  const instance = await createTestInstance({ plugins: [ingestPlugin] });
  const project = await instance.faultline.api.organizations.create({ slug: "a" }).then(() => instance.faultline.api.projects.create({ organization: "a", slug: "w" }));
  const server = await serveFaultline(instance.faultline);
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.keys[0]?.public}`, { method: "POST", body: Buffer.alloc(21 * 1024 * 1024, "a"), headers: { "Content-Encoding": "gzip" } });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: "Request body too large (limit 20 MiB)" });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  }
  await server.close();
  await instance.close();
});
