// Bundles a multi-file spec into one document with the pinned Redocly CLI.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const redoclyBin = join(require.resolve("@redocly/cli/package.json"), "..", "bin", "cli.js");
// The repository's redocly.yaml, named explicitly: its per-API decorators (x-codeSamples, see
// lint/code-samples.js) are part of the bundle, whatever directory the generator runs from.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const redoclyConfig = join(repoRoot, "redocly.yaml");

export function bundleSpec(rootFile: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), "mop-bundle-"));
  try {
    const out = join(dir, "bundle.json");
    try {
      execFileSync(process.execPath, [redoclyBin, "bundle", rootFile, "--config", redoclyConfig, "--output", out, "--ext", "json"], {
        cwd: repoRoot,
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
    } catch (error) {
      // Keep Redocly's own message, without its banner, so the failing file and line show.
      const stderr = String((error as { stderr?: Buffer }).stderr ?? "");
      const message = stderr.split("\n").filter((line) => line.trim() && !/[║╔╚]/.test(line)).join("\n");
      throw new Error(`bundling ${rootFile} failed:\n${message}`);
    }
    return JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
