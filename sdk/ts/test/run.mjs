// Runs every compiled test file at once, each in a process of its own with a
// shipd of its own: the files mostly wait (a rate limit's window, a webhook),
// and node --test would take them one at a time on two cores (its default
// concurrency is the number of CPUs less one, and Node 18 has no flag to
// change it).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";

const dir = "dist/test";
const files = readdirSync(dir).filter((f) => f.endsWith(".test.js")).map((f) => join(dir, f));
run({ files, concurrency: files.length })
  .on("test:fail", () => { process.exitCode = 1; })
  .compose(spec)
  .pipe(process.stdout);
