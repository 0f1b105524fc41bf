// The packaging project's global set-up: a directory for this run's one packed tarball
// (packed-tarball.ts packs into it on first use, so a run that needs no tarball packs none),
// removed after the run unless MOP_KEEP_PACK=1.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "mop-pack-run-"));
  project.provide("packRunDir", dir);
  return () => {
    if (process.env.MOP_KEEP_PACK) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
