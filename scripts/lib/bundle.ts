// Bundles a multi-file spec into one document with the pinned Redocly CLI.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const redoclyBin = join(require.resolve("@redocly/cli/package.json"), "..", "bin", "cli.js");

export function bundleSpec(rootFile: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), "mop-bundle-"));
  try {
    const out = join(dir, "bundle.json");
    try {
      execFileSync(process.execPath, [redoclyBin, "bundle", rootFile, "--output", out, "--ext", "json"], {
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
