// Renders one bundled spec into a self-contained reference page with the pinned Redocly CLI.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const redoclyBin = join(require.resolve("@redocly/cli/package.json"), "..", "bin", "cli.js");

/** Child processes never phone home: telemetry and update checks off. */
export const OFFLINE_ENV = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };

// Redoc 3 (inside Redocly CLI 2.x) shows an attribution logo that its bundle fetches from
// the vendor's CDN at run time, whatever the options. The page would then make a remote
// request, so the two URLs in the inlined bundle are replaced by a small local SVG that
// keeps the attribution visible. If a later Redoc changes them, assertPatched() fails the
// build rather than publishing a page that goes online.
const ATTRIBUTION_LOGO_URLS = ["https://cdn.redoc.ly/redoc/logo-mini-full.svg", "https://cdn.redoc.ly/redoc/logo-mini.svg"];
const LOCAL_LOGO =
  "data:image/svg+xml," +
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' width='56' height='16' viewBox='0 0 56 16'>" +
      "<text x='0' y='12' font-family='sans-serif' font-size='12' font-weight='700' fill='#0044D4'>Redocly</text></svg>",
  );

function patchAttributionLogo(html: string): string {
  let out = html;
  for (const url of ATTRIBUTION_LOGO_URLS) out = out.split(url).join(LOCAL_LOGO);
  return out;
}

function assertPatched(html: string, file: string): void {
  if (html.includes("cdn.redoc.ly/")) {
    throw new Error(`${file}: the Redoc bundle still references cdn.redoc.ly after patching; update scripts/docs/reference.ts`);
  }
}

export interface ReferenceResult {
  file: string;
  ms: number;
}

/**
 * `--inlineBundle` embeds the Redoc scripts in the page instead of loading them from the
 * Redocly CDN (the default). The page uses Redoc's hash routing (`#/orders/createorder`), so
 * it works on any static host and from file://.
 */
export async function renderReference(specFile: string, outFile: string, cwd: string): Promise<ReferenceResult> {
  const started = performance.now();
  try {
    await run(process.execPath, [redoclyBin, "build-docs", specFile, "--output", outFile, "--inlineBundle"], {
      cwd,
      env: OFFLINE_ENV,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`redocly build-docs ${specFile} failed:\n${stderr || String(error)}`);
  }
  const html = patchAttributionLogo(readFileSync(outFile, "utf8"));
  assertPatched(html, outFile);
  writeFileSync(outFile, html);
  return { file: outFile, ms: Math.round(performance.now() - started) };
}
