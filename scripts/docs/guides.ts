// Renders the Markdown guides (docs/*.md, not docs/source/) to HTML pages with marked.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Marked, type Tokens } from "marked";
import { escapeHtml, page } from "./page.js";

export interface Guide {
  /** File name without .md, e.g. "decisions". */
  name: string;
  title: string;
  markdown: string;
}

/** Guides are written by several people at once: whatever docs/*.md exist is the list. */
export function listGuides(docsDir: string): Guide[] {
  return readdirSync(docsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => entry.name)
    // The quick start is where a newcomer begins; the rest alphabetically.
    .sort((a, b) => Number(b === "quickstart.md") - Number(a === "quickstart.md") || a.localeCompare(b))
    .map((file) => {
      const markdown = readFileSync(join(docsDir, file), "utf8");
      const name = basename(file, ".md");
      const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown);
      return { name, title: heading?.[1]?.replace(/`/g, "") ?? name, markdown };
    });
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

/**
 * A link to another guide (`foo.md`, `./foo.md#part`) becomes `foo.html`. Any other relative
 * link points at a repository file that is not part of the site (docs/source/, openapi/):
 * it is made relative to docs/ again, which resolves when the site is opened from a checkout.
 */
export function rewriteHref(href: string, guideNames: ReadonlySet<string>): string {
  if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) return href;
  const [path = "", hash] = href.split(/(?=#)/, 2);
  const guide = /^(?:\.\/)?([^/]+)\.md$/.exec(path);
  if (guide?.[1] && guideNames.has(guide[1])) return `${guide[1]}.html${hash ?? ""}`;
  return `../../${path.replace(/^\.\//, "")}${hash ?? ""}`;
}

function markdownRenderer(guideNames: ReadonlySet<string>): Marked {
  const used = new Map<string, number>();
  const marked = new Marked({ gfm: true });
  marked.use({
    walkTokens(token) {
      if (token.type === "link" || token.type === "image") {
        const link = token as Tokens.Link | Tokens.Image;
        link.href = rewriteHref(link.href, guideNames);
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

export function renderGuide(guide: Guide, guideNames: ReadonlySet<string>): string {
  const body = markdownRenderer(guideNames).parse(guide.markdown, { async: false });
  return page({ title: `${guide.title} — Merchant Open Platform`, body, root: "../" });
}
