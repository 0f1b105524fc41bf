// One search across the API references and the guides. The build writes an index of every
// guide section, every operation and callback, every tag and every section of a reference's
// introduction, each with the link that opens it (a reference's hash route, a guide's heading
// anchor), and a search page whose script reads it. The index is a script file, not JSON
// fetched at run time, so the search works from file:// too; results are written with
// textContent only.
import { Lexer, type Token } from "marked";
import type { Guide } from "./guides.js";
import { slugify } from "./guides.js";
import { page } from "./page.js";

export { searchForm } from "./page.js";

export interface SearchEntry {
  /** What the result says it is: "Guide: Signing › The string to sign", "Signed API: Create an order (createOrder)". */
  title: string;
  /** Relative to the site root: "guides/signing.html#the-string-to-sign", "signed.html#/orders/createorder". */
  href: string;
  /** Plain text searched and shown as the snippet (cut). */
  text: string;
}

const TEXT_CHARS = 1500;
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

const plain = (markdown: string) =>
  markdown
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_>#|]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, TEXT_CHARS);

/** Guide sections by heading, with the same anchors as the rendered page (GitHub's, -1 for repeats). */
export function guideEntries(guide: Guide): SearchEntry[] {
  const entries: SearchEntry[] = [];
  const used = new Map<string, number>();
  let current: { heading: string; slug: string; parts: string[] } | undefined;
  const flush = () => {
    if (current) entries.push({ title: `Guide: ${guide.title}${current.heading === guide.title ? "" : ` › ${current.heading}`}`, href: `guides/${guide.name}.html#${current.slug}`, text: plain(current.parts.join(" ")) });
  };
  for (const token of new Lexer({ gfm: true }).lex(guide.markdown) as Token[]) {
    if (token.type === "heading") {
      flush();
      const heading = (token as { text: string }).text.replace(/`/g, "");
      let slug = slugify(heading);
      const seen = used.get(slug) ?? 0;
      used.set(slug, seen + 1);
      if (seen > 0) slug = `${slug}-${seen}`;
      current = { heading, slug, parts: [] };
    } else if (current) current.parts.push(token.raw);
  }
  flush();
  return entries;
}

/** Redoc's slug of a tag or a heading: lower case, words joined by "-". */
const redocSlug = (text: string) => text.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s+/g, "-");

/** Operations, callbacks, tags and introduction sections of one reference, as Redoc routes them. */
export function referenceEntries(name: string, label: string, spec: Record<string, any>): SearchEntry[] {
  const entries: SearchEntry[] = [];
  const at = (route: string) => `${name}.html#/${route}`;
  for (const heading of String(spec.info?.description ?? "").matchAll(/^#{1,2}\s+(.+)$/gm)) {
    const title = heading[1]!.trim();
    const start = heading.index! + heading[0].length;
    const rest = String(spec.info.description).slice(start);
    const end = rest.search(/^#{1,2}\s/m);
    entries.push({ title: `${label}: ${title}`, href: at(`section/${redocSlug(title)}`), text: plain(end < 0 ? rest : rest.slice(0, end)) });
  }
  for (const tag of spec.tags ?? []) entries.push({ title: `${label}: ${tag.name}`, href: at(redocSlug(String(tag.name))), text: plain(String(tag.description ?? "")) });
  const items = (group: Record<string, Record<string, any>> | undefined, kind: "path" | "webhook") => {
    for (const [key, item] of Object.entries(group ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const id = String(op.operationId ?? key);
        const where = kind === "path" ? `${method.toUpperCase()} ${key}` : `callback ${key}`;
        entries.push({
          title: `${label}: ${op.summary ?? id} (${id})`,
          href: at(`${redocSlug(String(op.tags?.[0] ?? ""))}/${id.toLowerCase()}`),
          text: plain(`${where} ${id} ${op.description ?? ""}`),
        });
      }
    }
  };
  items(spec.paths, "path");
  items(spec.webhooks, "webhook");
  return entries;
}

/** The index as a script: `window.MOP_SEARCH_INDEX = [...]` (JSON, with "<" escaped so no text ends the script). */
export function searchIndexScript(entries: readonly SearchEntry[]): string {
  return `window.MOP_SEARCH_INDEX = ${JSON.stringify(entries).replace(/</g, "\\u003c")};\n`;
}

// Every word must occur; a word in the title counts more. Plain browser JavaScript.
export const SEARCH_JS = `"use strict";
(function () {
  var index = window.MOP_SEARCH_INDEX || [];
  var query = new URLSearchParams(location.search).get("q") || "";
  var input = document.getElementById("q");
  input.value = query;
  var words = query.toLowerCase().split(/\\s+/).filter(Boolean);
  var list = document.getElementById("results");
  var summary = document.getElementById("summary");
  if (words.length === 0) { summary.textContent = "Type a word: an operation, a field, an error code."; return; }
  var found = [];
  for (var i = 0; i < index.length; i++) {
    var entry = index[i], title = entry.title.toLowerCase(), text = entry.text.toLowerCase(), score = 0, all = true;
    for (var w = 0; w < words.length; w++) {
      var inTitle = title.indexOf(words[w]) >= 0, inText = text.indexOf(words[w]) >= 0;
      if (!inTitle && !inText) { all = false; break; }
      score += (inTitle ? 5 : 0) + (inText ? 1 : 0);
    }
    if (all) found.push({ entry: entry, score: score, order: i });
  }
  found.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
  summary.textContent = found.length === 0 ? "Nothing found for \\u201c" + query + "\\u201d." : found.length + " result" + (found.length === 1 ? "" : "s") + " for \\u201c" + query + "\\u201d" + (found.length > 50 ? " (the first 50 shown)" : "") + ".";
  found.slice(0, 50).forEach(function (hit) {
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = hit.entry.href;
    link.textContent = hit.entry.title;
    var at = hit.entry.text.toLowerCase().indexOf(words[0]);
    var start = Math.max(0, at - 80);
    var snippet = document.createElement("p");
    snippet.className = "muted";
    snippet.textContent = (start > 0 ? "\\u2026" : "") + hit.entry.text.slice(start, start + 240) + (start + 240 < hit.entry.text.length ? "\\u2026" : "");
    item.append(link, snippet);
    list.append(item);
  });
})();
`;

export function searchPage(): string {
  const body = `<h1>Search</h1>
<form role="search" aria-label="Search on this page" action="search.html" method="get"><label for="q">Search the references and the guides</label> <input id="q" name="q" type="search"> <button type="submit">Search</button></form>
<p id="summary" role="status"></p>
<ol id="results" class="results"></ol>
<script src="search-index.js"></script>
<script src="search.js"></script>`;
  return page({ title: "Search — Merchant Open Platform", body, root: "" });
}
