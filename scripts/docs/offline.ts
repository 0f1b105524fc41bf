// Finds resources an HTML page would load from another host: the site must work with no
// network (DESIGN: "reference HTML rendered by redocly build-docs (no CDN)").
//
// Script bodies are skipped when scanning tags: the inlined Redoc bundle is full of markup-like
// strings (`<script><\/script>` in React's DOM code) that the browser never loads as tags;
// only module imports of a remote URL are looked for inside them.
// A remote fetch made by the bundle itself at run time cannot be seen in the markup; the
// known one (Redoc's attribution logo) is patched in reference.ts, and the browser test
// (test/docs) records every request a page makes.

export interface RemoteResource {
  /** The tag or CSS construct that would load it, e.g. `<script src>`, `url()`. */
  via: string;
  url: string;
}

const REMOTE = /^\s*(?:https?:)?\/\//i;

// Elements and the attribute through which each loads something.
const LOADING_ATTRIBUTES: Array<[string, string]> = [
  ["script", "src"],
  ["link", "href"],
  ["img", "src"],
  ["img", "srcset"],
  ["source", "src"],
  ["source", "srcset"],
  ["iframe", "src"],
  ["embed", "src"],
  ["object", "data"],
  ["video", "src"],
  ["video", "poster"],
  ["audio", "src"],
  ["track", "src"],
  ["image", "href"],
  ["use", "href"],
];

// `import x from "https://…"` or `import("https://…")` at the top of an inline module script:
// how Redocly's default (CDN) page loads Redoc, with only a modulepreload hint in the markup.
const REMOTE_IMPORT = /\bimport\s*(?:[\w*{}\s,$]+\bfrom\s*)?["']((?:https?:)?\/\/[^"']+)["']|\bimport\(\s*["'`]((?:https?:)?\/\/[^"'`]+)/g;

function remoteModuleImports(html: string): RemoteResource[] {
  const found: RemoteResource[] = [];
  for (const script of html.matchAll(/<script\b[^>]*\btype\s*=\s*["']?module["']?[^>]*>([\s\S]*?)<\/script\s*>/gi)) {
    for (const match of (script[1] ?? "").matchAll(REMOTE_IMPORT)) found.push({ via: "module import", url: match[1] ?? match[2] ?? "" });
  }
  return found;
}

/** Removes what lies between <script ...> and </script>, keeping the opening tag. */
function stripScriptBodies(html: string): string {
  return html.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script\s*>)/gi, "$1$2");
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function cssUrls(css: string): string[] {
  const urls: string[] = [];
  for (const match of css.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)|@import\s+(['"])([^'"]+)\3/gi)) {
    urls.push((match[2] ?? match[4] ?? "").trim());
  }
  return urls;
}

export function findRemoteResources(html: string): RemoteResource[] {
  const found = remoteModuleImports(html);
  const markup = stripScriptBodies(html);
  for (const [element, attr] of LOADING_ATTRIBUTES) {
    for (const match of markup.matchAll(new RegExp(`<${element}\\b[^>]*>`, "gi"))) {
      const value = attribute(match[0], attr) ?? (attr === "href" ? attribute(match[0], "xlink:href") : undefined);
      if (value === undefined) continue;
      // srcset lists "url descriptor, url descriptor".
      const urls = attr === "srcset" ? value.split(",").map((part) => part.trim().split(/\s+/)[0] ?? "") : [value];
      for (const url of urls) if (REMOTE.test(url)) found.push({ via: `<${element} ${attr}>`, url });
    }
  }
  for (const match of markup.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) {
    for (const url of cssUrls(match[1] ?? "")) if (REMOTE.test(url)) found.push({ via: "<style> url()/@import", url });
  }
  for (const match of markup.matchAll(/\sstyle\s*=\s*"([^"]*)"/gi)) {
    for (const url of cssUrls(match[1] ?? "")) if (REMOTE.test(url)) found.push({ via: "style attribute url()", url });
  }
  return found;
}
