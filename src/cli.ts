#!/usr/bin/env node
import { runCli } from "./cli/run.js";

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`faultline: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
