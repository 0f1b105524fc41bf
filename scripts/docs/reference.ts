// Renders one bundled spec into a self-contained reference page with the pinned Redocly CLI.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { escapeHtml, searchForm, siteNav } from "./page.js";

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

/** Block-level starts a soft line break must not be joined onto (lists, tables, quotes, headings, code). */
const BLOCK_START = /^(\s{2,}|\t|[-*+]\s|\d+[.)]\s|\||#|>|```|~~~)/;

/**
 * Joins soft-wrapped lines of a Markdown description with a space. Rendered Markdown shows a
 * soft break as a space anyway, but Redoc's search index takes the raw lines and glues them
 * ("result\narrives" became "resultarrives"). Lists, tables, quotes, headings and code keep
 * their line breaks.
 */
export function unwrapSoftBreaks(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fenced = false;
  for (const line of lines) {
    const fence = /^\s*(```|~~~)/.test(line);
    const previous = out[out.length - 1];
    const joinable =
      !fenced && !fence && previous !== undefined && previous.trim() !== "" && line.trim() !== "" && !BLOCK_START.test(line) && !/^\s*(```|~~~)/.test(previous) && !/^(\||#)/.test(previous) && !/ {2}$/.test(previous);
    if (joinable && !/^\s*([-*+]|\d+[.)])\s/.test(previous)) out[out.length - 1] = `${previous} ${line}`;
    else out.push(line);
    if (fence) fenced = !fenced;
  }
  return out.join("\n");
}

/** `docs/errors.md` (with an optional #anchor) in a description becomes a link to that guide's page. */
export function linkGuideMentions(markdown: string, guideNames: ReadonlySet<string>): string {
  return markdown.replace(/(?<![[\w/.-]|\]\()docs\/([a-z0-9-]+)\.md(#[\w-]+)?/g, (mention, name: string, hash: string | undefined) =>
    guideNames.has(name) ? `[${mention}](guides/${name}.html${hash ?? ""})` : mention,
  );
}

/** A copy of the spec whose descriptions are prepared for the site (search text, guide links). */
export function specForSite(spec: unknown, guideNames: ReadonlySet<string>): unknown {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, key === "description" && typeof value === "string" ? linkGuideMentions(unwrapSoftBreaks(value), guideNames) : walk(value)]),
    );
  };
  return walk(spec);
}

// The site's navigation, put above Redoc's own layout; styled here because the page has no
// other stylesheet of the site.
const NAV_CSS = `<style>
.mop-site-header { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; background: #ffffff; border-bottom: 1px solid #d0d7de; padding: .5rem 1.25rem; }
.mop-site-header nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.mop-site-header a { color: #0550ae; }
.mop-site-header a[aria-current="page"] { font-weight: 700; color: #1b1f24; text-decoration: none; }
.mop-site-header .site-search { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; margin: .25rem 0 0; }
.mop-site-header .site-search input { font: inherit; padding: .1rem .4rem; max-width: 100%; }
</style>`;

/**
 * Redoc 3 renders its links as paths from the host's root (`/orders`, `/section/signing`) and
 * routes a click on them to `#/orders` itself. Opened in a new tab, copied or bookmarked, such a
 * link leaves the reference (on the sandbox, for its JSON 404). Every root-relative link of the
 * page becomes the hash route Redoc reads when the page opens: in the rendered markup here, and
 * for links Redoc draws later (lazy sections) by the small script below.
 */
export function hashRoutes(html: string): string {
  // Outside scripts only: the inlined bundle holds markup-like strings.
  return html
    .split(/(<script\b[\s\S]*?<\/script>)/i)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/(<a\b[^>]*?\shref=")\/(?!\/)/gi, "$1#/")))
    .join("");
}

const HASH_ROUTE_SCRIPT = `<script>
(function () {
  function fix(root) {
    var links = root.querySelectorAll ? root.querySelectorAll('a[href^="/"]:not([href^="//"])') : [];
    for (var i = 0; i < links.length; i++) links[i].setAttribute("href", "#" + links[i].getAttribute("href"));
  }
  fix(document);
  new MutationObserver(function (changes) {
    for (var c = 0; c < changes.length; c++) {
      var change = changes[c];
      if (change.type === "attributes") fix(change.target.parentNode || document);
      for (var n = 0; n < change.addedNodes.length; n++) if (change.addedNodes[n].nodeType === 1) fix(change.addedNodes[n].parentNode || document);
    }
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["href"] });
})();
</script>`;

/** Puts the site's header as the first element of the page's body. */
export function withSiteHeader(html: string, current: string, title: string): string {
  const head = html.indexOf("</head>");
  const body = head < 0 ? -1 : html.indexOf("<body", head);
  const open = body < 0 ? -1 : html.indexOf(">", body);
  if (head < 0 || open < 0) throw new Error(`${title}: no <head>/<body> to put the site navigation into`);
  return `${html.slice(0, head)}${NAV_CSS}\n${html.slice(head, open + 1)}\n<header class="mop-site-header" aria-label="${escapeHtml(title)}">${siteNav("", current)}${searchForm("")}</header>${html.slice(open + 1)}`;
}

/** The page's links as hash routes, and the script that keeps Redoc's later links so. */
export function withHashRoutes(html: string): string {
  const end = html.lastIndexOf("</body>");
  if (end < 0) throw new Error("a reference page without </body>");
  const fixed = hashRoutes(html.slice(0, end));
  return `${fixed}${HASH_ROUTE_SCRIPT}\n${html.slice(end)}`;
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
export async function renderReference(specFile: string, outFile: string, cwd: string, guideNames: ReadonlySet<string> = new Set()): Promise<ReferenceResult> {
  const started = performance.now();
  const prepared = mkdtempSync(join(tmpdir(), "mop-docs-spec-"));
  const preparedSpec = join(prepared, specFile.split(/[\\/]/).pop()!);
  writeFileSync(preparedSpec, JSON.stringify(specForSite(JSON.parse(readFileSync(specFile, "utf8")), guideNames)));
  try {
    await run(process.execPath, [redoclyBin, "build-docs", preparedSpec, "--output", outFile, "--inlineBundle"], {
      cwd,
      env: OFFLINE_ENV,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`redocly build-docs ${specFile} failed:\n${stderr || String(error)}`);
  } finally {
    rmSync(prepared, { recursive: true, force: true });
  }
  const page = outFile.split(/[\\/]/).pop()!;
  const html = withHashRoutes(withSiteHeader(patchAttributionLogo(readFileSync(outFile, "utf8")), page, "Merchant Open Platform docs"));
  assertPatched(html, outFile);
  writeFileSync(outFile, html);
  return { file: outFile, ms: Math.round(performance.now() - started) };
}
