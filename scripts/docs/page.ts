// The HTML shell shared by the index and the guide pages: one inline stylesheet and no
// external resource of any kind, so the site works offline and from file://.

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

// System fonts only (a web font would be a remote request); colours keep WCAG AA contrast.
const CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --link: #0550ae; --line: #d0d7de; --code: #f3f4f6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --link: #58a6ff; --line: #30363d; --code: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
header, main, footer { max-width: 52rem; margin: 0 auto; padding: 0 1.25rem; }
header { border-bottom: 1px solid var(--line); padding-top: 1rem; padding-bottom: .5rem; }
header nav a { margin-right: 1rem; }
header nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--fg); }
nav.pager { display: flex; justify-content: space-between; gap: 1rem; flex-wrap: wrap; border-top: 1px solid var(--line); margin-top: 2.5rem; padding-top: 1rem; }
footer { border-top: 1px solid var(--line); color: var(--muted); font-size: .9rem; margin-top: 3rem; padding-top: 1rem; padding-bottom: 2rem; }
a { color: var(--link); }
a:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
h1, h2, h3 { line-height: 1.25; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; background: var(--code); border-radius: 4px; }
code { padding: .1em .3em; overflow-wrap: anywhere; }
main { overflow-wrap: break-word; }
pre { padding: .8rem 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { padding: 0; background: none; }
.table-scroll { overflow-x: auto; margin: 1rem 0; }
.table-scroll:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
table { border-collapse: collapse; }
.site-search { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; margin: .5rem 0; }
.site-search input, form[role=search] input { font: inherit; padding: .2rem .4rem; max-width: 100%; }
ol.results li { margin: .75rem 0; } ol.results p { margin: .1rem 0; }
th, td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
.muted { color: var(--muted); }
ul.cards { list-style: none; padding: 0; }
ul.cards li { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin: .5rem 0; }
ul.cards a { font-weight: 600; }
`;

/** The site's top-level places: every page's header links to each of them. */
export const SITE_LINKS: readonly { href: string; label: string }[] = [
  { href: "index.html", label: "Docs home" },
  { href: "signed.html", label: "Signed API" },
  { href: "keyed.html", label: "Key-based API" },
  { href: "sandbox-control.html", label: "Sandbox control API" },
  { href: "index.html#guides", label: "Guides" },
];

/**
 * The one navigation of every page. `root` is the relative way to the site root ("" or "../"),
 * so links resolve from docs/site/ on disk and under any URL prefix (the sandbox's /docs).
 */
/** The search form every page's header carries; `root` is the way to the site root. */
export function searchForm(root: string): string {
  return `<form class="site-search" role="search" aria-label="Site search" action="${root}search.html" method="get"><label for="site-search-q">Search the docs</label> <input id="site-search-q" name="q" type="search" placeholder="operation, field, error code"> <button type="submit">Search</button></form>`;
}

export function siteNav(root: string, current?: string): string {
  const links = SITE_LINKS.map(({ href, label }) => `<a href="${root}${href}"${href === current ? ' aria-current="page"' : ""}>${escapeHtml(label)}</a>`);
  return `<nav aria-label="Site">${links.join("\n")}</nav>`;
}

export interface PageOptions {
  title: string;
  /** Already-escaped HTML of the main content. */
  body: string;
  /** Relative path from the page to the site root ("" or "../"). */
  root: string;
  /** The SITE_LINKS href of this page, if it is one of them. */
  current?: string;
}

export function page({ title, body, root, current }: PageOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header>${siteNav(root, current)}${searchForm(root)}</header>
<main id="content">
${body}
</main>
<footer>Rendered from the merchant-open-platform package; every page works offline.</footer>
</body>
</html>
`;
}
