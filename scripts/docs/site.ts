// Builds the offline docs site: one Redoc page per bundled spec, the guides, an index, and a
// final scan that refuses any page loading a script, style, font or image from another host.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { listGuides, renderGuide } from "./guides.js";
import { indexPage, type ReferenceEntry } from "./index-page.js";
import { findRemoteResources } from "./offline.js";
import { SITE_LINKS } from "./page.js";
import { renderReference } from "./reference.js";
import { guideEntries, referenceEntries, SEARCH_JS, searchIndexScript, searchPage } from "./search.js";

/** In display order; sandbox-control is rendered once its bundle exists. */
export const REFERENCE_SPECS = ["signed", "keyed", "sandbox-control"] as const;

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

export interface SiteOptions {
  /** The package root (where generated/ and docs/ are). */
  root: string;
  /** Where to write the site; emptied first. Default: <root>/docs/site. */
  outDir?: string;
}

export interface SiteResult {
  outDir: string;
  references: ReferenceEntry[];
  guides: string[];
  timings: Record<string, number>;
  totalMs: number;
}

function referenceEntry(name: string, spec: Record<string, any>): ReferenceEntry {
  const operations = Object.values<Record<string, unknown>>(spec.paths ?? {}).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => METHODS.has(key)).length,
    0,
  );
  return {
    name,
    title: String(spec.info?.title ?? name),
    version: String(spec.info?.version ?? ""),
    summary: String(spec.info?.summary ?? ""),
    operations,
    webhooks: Object.keys(spec.webhooks ?? {}).length,
  };
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html"))
    .map((entry) => join(entry.parentPath, entry.name));
}

export async function buildSite({ root, outDir = join(root, "docs", "site") }: SiteOptions): Promise<SiteResult> {
  const started = performance.now();
  const timings: Record<string, number> = {};
  // Emptied first, so a removed guide or spec does not leave a stale page behind.
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "guides"), { recursive: true });

  const specs = REFERENCE_SPECS.map((name) => ({ name, file: join(root, "generated", `${name}.openapi.json`) })).filter((s) => existsSync(s.file));
  if (specs.length === 0) throw new Error("no generated/*.openapi.json found; run npm run generate first");
  const guides = listGuides(join(root, "docs"));
  const guideNames = new Set(guides.map((g) => g.name));
  // The Redocly runs are independent child processes: run them side by side.
  const rendered = await Promise.all(specs.map((s) => renderReference(s.file, join(outDir, `${s.name}.html`), root, guideNames)));
  rendered.forEach((r, i) => (timings[`${specs[i]!.name}.html`] = r.ms));
  const references = specs.map((s) => referenceEntry(s.name, JSON.parse(readFileSync(s.file, "utf8")) as Record<string, any>));

  const guidesStarted = performance.now();
  for (const guide of guides) writeFileSync(join(outDir, "guides", `${guide.name}.html`), renderGuide(guide, guides));
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  writeFileSync(join(outDir, "index.html"), indexPage(references, guides, version));
  // One search over both: the references' operations, callbacks and sections, and every guide section.
  const searchEntries = [
    ...specs.flatMap((s, i) => referenceEntries(s.name, SITE_LINKS.find((l) => l.href === `${s.name}.html`)?.label ?? references[i]!.title, JSON.parse(readFileSync(s.file, "utf8")) as Record<string, any>)),
    ...guides.flatMap(guideEntries),
  ];
  writeFileSync(join(outDir, "search.html"), searchPage());
  writeFileSync(join(outDir, "search.js"), SEARCH_JS);
  writeFileSync(join(outDir, "search-index.js"), searchIndexScript(searchEntries));
  timings["guides and index"] = Math.round(performance.now() - guidesStarted);

  const offenders = htmlFiles(outDir).flatMap((file) =>
    findRemoteResources(readFileSync(file, "utf8")).map((r) => `${relative(outDir, file)}: ${r.via} ${r.url}`),
  );
  if (offenders.length > 0) {
    throw new Error(`These pages would load resources from another host; the site must work offline:\n  ${offenders.join("\n  ")}`);
  }
  return { outDir, references, guides: guides.map((g) => g.name), timings, totalMs: Math.round(performance.now() - started) };
}
