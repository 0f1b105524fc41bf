// Renders the Markdown guides (docs/*.md, not docs/source/) to HTML pages with marked.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Marked, type Tokens } from "marked";
import { escapeHtml, page } from "./page.js";

export interface Guide {
  /** File name without .md, e.g. "decisions". */
  name: string;
  title: string;
  markdown: string;
  /** Where its relative links start: "docs" for docs/*.md, "root" for an extra page such as CHANGELOG.md. */
  linksFrom: "docs" | "root";
}

function guideFrom(path: string, name: string, linksFrom: Guide["linksFrom"]): Guide {
  const markdown = readFileSync(path, "utf8");
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown);
  return { name, title: heading?.[1]?.replace(/`/g, "") ?? name, markdown, linksFrom };
}

/**
 * Guides are written by several people at once: whatever docs/*.md exist is the list, then
 * the extra pages (the changelog) whose files exist.
 */
export function listGuides(docsDir: string): Guide[] {
  const guides = readdirSync(docsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => entry.name)
    // The quick start is where a newcomer begins; the rest alphabetically.
    .sort((a, b) => Number(b === "quickstart.md") - Number(a === "quickstart.md") || a.localeCompare(b))
    .map((file) => guideFrom(join(docsDir, file), basename(file, ".md"), "docs"));
  for (const extra of Object.values(EXTRA_PAGES)) {
    const path = join(docsDir, "..", extra.file);
    if (existsSync(path)) guides.push(guideFrom(path, extra.name, "root"));
  }
  return guides;
}

/** GitHub's heading anchors, so that `decisions.md#source-inconsistencies` keeps working. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Files outside docs/ that are rendered as pages of the site too, by the link that reaches them from a guide. */
export const EXTRA_PAGES: Readonly<Record<string, { file: string; name: string }>> = {
  "../CHANGELOG.md": { file: "CHANGELOG.md", name: "changelog" },
};

/** A relative link in a guide to something the site does not contain. */
export class UnresolvableLinkError extends Error {}

/**
 * A link to another guide (`foo.md`, `./foo.md#part`) becomes `foo.html`, and one to a file
 * rendered as an extra page (the changelog) becomes that page. The site is served on its own
 * (the sandbox's /docs, an installed package), so a relative link to anything else would be a
 * 404 there: the build refuses it and names it.
 */
export function rewriteHref(href: string, guideNames: ReadonlySet<string>, linksFrom: Guide["linksFrom"] = "docs"): string {
  if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) return href;
  let [path = "", hash] = href.split(/(?=#)/, 2);
  // From the repository root, docs/x.md is a guide and anything else is one level up from docs/.
  if (linksFrom === "root") path = path.startsWith("docs/") ? path.slice("docs/".length) : `../${path.replace(/^\.\//, "")}`;
  const guide = /^(?:\.\/)?([^/]+)\.md$/.exec(path);
  if (guide?.[1] && guideNames.has(guide[1])) return `${guide[1]}.html${hash ?? ""}`;
  const extra = EXTRA_PAGES[path];
  if (extra && guideNames.has(extra.name)) return `${extra.name}.html${hash ?? ""}`;
  throw new UnresolvableLinkError(`links to ${JSON.stringify(href)}, which is not a page of the docs site; link a guide (name.md) or an https:// address`);
}

function markdownRenderer(guideNames: ReadonlySet<string>, guide: Guide): Marked {
  const used = new Map<string, number>();
  const marked = new Marked({ gfm: true });
  marked.use({
    walkTokens(token) {
      if (token.type === "link" || token.type === "image") {
        const link = token as Tokens.Link | Tokens.Image;
        try {
          link.href = rewriteHref(link.href, guideNames, guide.linksFrom);
        } catch (error) {
          if (error instanceof UnresolvableLinkError) throw new UnresolvableLinkError(`docs: the guide ${guide.name} ${error.message}`);
          throw error;
        }
      }
    },
    renderer: {
      heading({ tokens, depth, text }) {
        let slug = slugify(text);
        // Same rule as GitHub for repeated headings: -1, -2, ...
        const seen = used.get(slug) ?? 0;
        used.set(slug, seen + 1);
        if (seen > 0) slug = `${slug}-${seen}`;
        return `<h${depth} id="${escapeHtml(slug)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
  return marked;
}

/** Previous and next guide, in the index's order, so the guides read as one sequence. */
function pager(guides: readonly Guide[], index: number): string {
  const link = (guide: Guide | undefined, rel: "prev" | "next") =>
    guide ? `<a rel="${rel}" href="${escapeHtml(guide.name)}.html">${rel === "prev" ? "← " : ""}${escapeHtml(guide.title)}${rel === "next" ? " →" : ""}</a>` : "<span></span>";
  return `<nav class="pager" aria-label="Guides">${link(guides[index - 1], "prev")}${link(guides[index + 1], "next")}</nav>`;
}

/**
 * A wide table scrolls inside its own box (the page never scrolls sideways on a phone); the box
 * is a named region the keyboard can reach and scroll (axe: scrollable-region-focusable).
 */
export function scrollableTables(html: string): string {
  let n = 0;
  return html.replace(/<table>([\s\S]*?)<\/table>/g, (table, inner: string) => {
    n += 1;
    const headings = [...(/<thead>([\s\S]*?)<\/thead>/.exec(inner)?.[1] ?? "").matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]*>/g, "").trim());
    const named = headings.filter((h) => h !== "");
    const label = `Table ${n}${named.length ? `: ${named.join(", ")}` : ""}`;
    // A header cell left empty in the Markdown heads nothing: an ordinary cell, not an empty header.
    const cells = table.replace(/<th([^>]*)>\s*<\/th>/g, "<td$1></td>");
    return `<div class="table-scroll" role="region" tabindex="0" aria-label="${escapeHtml(label.replace(/&[a-z#0-9]+;/gi, " "))}">${cells}</div>`;
  });
}

export function renderGuide(guide: Guide, guides: readonly Guide[]): string {
  const names = new Set(guides.map((g) => g.name));
  const body = scrollableTables(markdownRenderer(names, guide).parse(guide.markdown, { async: false })) + pager(guides, guides.indexOf(guide));
  return page({ title: `${guide.title} — Merchant Open Platform`, body, root: "../" });
}
