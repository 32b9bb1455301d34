import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { extractPGliteTemplate, isFreshDataDir } from "../../src/db/pglite-template.js";
import { pickBackend } from "../../src/testing/index.js";

const { backend } = await pickBackend();
const work = await mkdtemp(join(tmpdir(), "faultline-template-"));
afterAll(() => rm(work, { recursive: true, force: true }));

// The template itself is made by the build (dist/, tested in test/dist/built-package.test.ts);
// here a cluster is dumped the same way and written to disk by Faultline's own reader.
// Runs a real initdb (seconds of CPU): more than the suite's 30 s beside other test files on two cores.
describe.skipIf(backend !== "pglite")(
  "the PGlite template written to a data directory (PGlite only)",
  { timeout: 120_000 },
  () => {
    it("gives a cluster PGlite opens as its own, with the dumped data, without initdb", async () => {
      const source = await PGlite.create();
      await source.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('from the template'); CHECKPOINT;");
      const templatePath = join(work, "template.tar.gz");
      await writeFile(templatePath, Buffer.from(await (await source.dumpDataDir("gzip")).arrayBuffer()));
      await source.close();

      const dataDir = join(work, "data");
      expect(isFreshDataDir(dataDir)).toBe(true);
      extractPGliteTemplate(templatePath, dataDir);
      expect(isFreshDataDir(dataDir)).toBe(false);

      const opened = await PGlite.create(dataDir);
      try {
        expect((await opened.query<{ note: string }>("SELECT note FROM kept")).rows).toEqual([
          { note: "from the template" },
        ]);
      } finally {
        await opened.close();
      }
    });

    it("counts a directory without PG_VERSION as fresh (an extraction that stopped half-way is redone)", async () => {
      const dataDir = join(work, "half-written");
      await mkdir(join(dataDir, "base"), { recursive: true });
      expect(isFreshDataDir(dataDir)).toBe(true);
    });
  },
);
