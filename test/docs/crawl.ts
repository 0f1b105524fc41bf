// Follows every link of the docs site from its index, on disk (file: URLs) or over HTTP (the
// sandbox's /docs), and reports each one whose page or #anchor does not exist. A link is
// checked where a browser would resolve it: relative to the page that holds it.

/** What fetching one URL gave: its HTML, or its status when it is not there. */
export type Fetched = { ok: true; html: string } | { ok: false; status: number };

export interface CrawlResult {
  /** Pages visited, as URLs. */
  pages: string[];
  /** Links checked (page, href) that resolved. */
  links: number;
  /** "page → href: why" for every link that does not resolve. */
  broken: string[];
}

const SCRIPT = /<script\b[\s\S]*?<\/script>/gi;

/**
 * Hrefs of a page: its anchors (outside scripts), and the guide links Redoc renders from the
 * embedded spec. Of a Redoc page only the site header is static markup: the rest is Redoc's
 * server render, whose links its script turns into hash routes (the browser test checks those).
 */
export function pageLinks(html: string): string[] {
  const redoc = html.includes("__redoc_definition");
  const markup = redoc ? (/<header class="mop-site-header"[\s\S]*?<\/header>/.exec(html)?.[0] ?? "") : html.replace(SCRIPT, "");
  const anchors = [...markup.matchAll(/<a\b[^>]*?\shref="([^"]*)"/gi)].map((m) => m[1]!.replace(/&amp;/g, "&"));
  const specLinks = [...html.matchAll(/\]\((guides\/[\w-]+\.html(?:#[\w-]+)?)\)/g)].map((m) => m[1]!);
  return [...new Set([...anchors, ...specLinks])];
}

function ids(html: string): Set<string> {
  return new Set([...html.replace(SCRIPT, "").matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
}

export async function crawl(start: URL, fetchPage: (url: URL) => Promise<Fetched>): Promise<CrawlResult> {
  const base = new URL(".", start);
  const seen = new Map<string, Fetched>();
  const load = async (url: URL) => {
    const key = url.href;
    if (!seen.has(key)) seen.set(key, await fetchPage(url));
    return seen.get(key)!;
  };
  const queue = [start];
  const visited = new Set<string>();
  const broken: string[] = [];
  let links = 0;
  while (queue.length > 0) {
    const pageUrl = queue.shift()!;
    if (visited.has(pageUrl.href)) continue;
    visited.add(pageUrl.href);
    const page = await load(pageUrl);
    if (!page.ok) continue; // reported by the link that led here
    for (const href of pageLinks(page.html)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith(base.protocol)) continue; // https://, mailto:
      const target = new URL(href, pageUrl);
      const where = `${pageUrl.href.slice(base.href.length) || "index"} → ${href}`;
      if (!target.href.startsWith(base.href)) {
        broken.push(`${where}: leaves the site (${target.href})`);
        continue;
      }
      const document = new URL(target.href);
      document.hash = "";
      const fetched = await load(document);
      if (!fetched.ok) {
        broken.push(`${where}: ${fetched.status}`);
        continue;
      }
      const fragment = decodeURIComponent(target.hash.slice(1));
      // Redoc's "#/tag/operation" routes are resolved by its script, not by ids in the markup.
      if (fragment !== "" && !fragment.startsWith("/") && !ids(fetched.html).has(fragment)) {
        broken.push(`${where}: no element with id "${fragment}"`);
        continue;
      }
      links += 1;
      if (document.pathname.endsWith(".html") && !visited.has(document.href)) queue.push(document);
    }
  }
  return { pages: [...visited], links, broken };
}
