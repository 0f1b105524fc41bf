// The docs build without a browser: the offline scan, the guide link rewriting, and a full
// build of the site into a temporary folder.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { listGuides, renderGuide, rewriteHref, scrollableTables, slugify, UnresolvableLinkError } from "../../scripts/docs/guides.js";
import { guideEntries, referenceEntries } from "../../scripts/docs/search.js";
import { SITE_LINKS } from "../../scripts/docs/page.js";
import { hashRoutes, linkGuideMentions, unwrapSoftBreaks } from "../../scripts/docs/reference.js";
import { crawl } from "./crawl.js";
import { findRemoteResources } from "../../scripts/docs/offline.js";
import { OFFLINE_ENV } from "../../scripts/docs/reference.js";
import { buildSite } from "../../scripts/docs/site.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
const temp: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mop-docs-test-"));
  temp.push(dir);
  return dir;
};
afterAll(() => temp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("findRemoteResources", () => {
  it("flags scripts, styles, fonts and images from other hosts", () => {
    const html = `<html><head>
<script src="https://cdn.example.com/redoc.js"></script>
<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">
<style>@import url("https://example.com/a.css"); @font-face { src: url(https://fonts.gstatic.com/x.woff2) }</style>
</head><body><img src='http://example.com/logo.png'><div style="background: url(https://example.com/bg.png)"></div>
<script type="module">import { init } from "https://cdn.example.com/redoc.mjs";</script></body></html>`;
    expect(findRemoteResources(html).map((r) => r.url)).toEqual([
      "https://cdn.example.com/redoc.mjs",
      "https://cdn.example.com/redoc.js",
      "//fonts.googleapis.com/css?family=Roboto",
      "http://example.com/logo.png",
      "https://example.com/a.css",
      "https://fonts.gstatic.com/x.woff2",
      "https://example.com/bg.png",
    ]);
  });

  it("ignores local resources, links and markup inside script bodies", () => {
    const html = `<link href="guides/a.html"><script src="app.js"></script><a href="https://example.com">x</a>
<img src="data:image/svg+xml,abc"><script>const t = '<script src="https://x.example/y.js"><\\/script>';</script>`;
    expect(findRemoteResources(html)).toEqual([]);
  });

  it("catches Redocly's default page, which loads Redoc from its CDN", () => {
    const out = join(tempDir(), "cdn.html");
    const cli = join(createRequire(import.meta.url).resolve("@redocly/cli/package.json"), "..", "bin", "cli.js");
    execFileSync(process.execPath, [cli, "build-docs", join(root, "generated", "keyed.openapi.json"), "--output", out], { cwd: root, env: OFFLINE_ENV, stdio: "ignore" });
    expect(findRemoteResources(readFileSync(out, "utf8")).length).toBeGreaterThan(0);
  });
});

describe("guide links", () => {
  const guides = new Set(["decisions", "errors", "changelog"]);

  it.each([
    ["decisions.md", "decisions.html"],
    ["./errors.md#codes", "errors.html#codes"],
    ["../CHANGELOG.md", "changelog.html"],
    ["../CHANGELOG.md#010", "changelog.html#010"],
  ])("%s → %s", (href, expected) => {
    expect(rewriteHref(href, guides)).toBe(expected);
  });

  it.each([
    ["https://example.com/a.md", "https://example.com/a.md"],
    ["#local", "#local"],
  ])("%s → %s", (href, expected) => {
    expect(rewriteHref(href, guides)).toBe(expected);
  });

  it.each([
    ["docs/decisions.md#x", "decisions.html#x"],
    ["CHANGELOG.md", "changelog.html"],
  ])("from the repository root (the changelog): %s → %s", (href, expected) => {
    expect(rewriteHref(href, guides, "root")).toBe(expected);
  });

  it.each(["source/merchant-open-platform-interface.md", "../openapi/errors.yaml", "missing.md"])(
    "refuses %s, which would be a 404 under the sandbox's /docs",
    (href) => {
      expect(() => rewriteHref(href, guides)).toThrow(UnresolvableLinkError);
      expect(() => rewriteHref(href, guides)).toThrow(/not a page of the docs site/);
    },
  );

  it("heading anchors follow GitHub's", () => {
    expect(slugify("The `x-` extensions used in the specs")).toBe("the-x--extensions-used-in-the-specs");
    expect(slugify("Decisions (DESIGN items 1–13)")).toBe("decisions-design-items-113");
  });
});

describe("reference descriptions", () => {
  it("join soft-wrapped lines (Redoc's search glued them) but keep lists, tables and code", () => {
    expect(unwrapSoftBreaks("The result\narrives later.\nThe order is paid.")).toBe("The result arrives later. The order is paid.");
    expect(unwrapSoftBreaks("Intro:\n\n- one\n- two\n\n| a |\n|---|\n\n```\nx\ny\n```")).toBe("Intro:\n\n- one\n- two\n\n| a |\n|---|\n\n```\nx\ny\n```");
    expect(unwrapSoftBreaks("hard  \nbreak")).toBe("hard  \nbreak");
  });

  it("link docs/<guide>.md mentions to the guide's page, and leave links and unknown files alone", () => {
    const guides = new Set(["errors", "decisions"]);
    expect(linkGuideMentions("codes (docs/errors.md).", guides)).toBe("codes ([docs/errors.md](guides/errors.html)).");
    expect(linkGuideMentions("see docs/decisions.md#limits", guides)).toBe("see [docs/decisions.md#limits](guides/decisions.html#limits)");
    expect(linkGuideMentions("[docs/errors.md](guides/errors.html)", guides)).toBe("[docs/errors.md](guides/errors.html)");
    expect(linkGuideMentions("docs/unknown.md", guides)).toBe("docs/unknown.md");
  });
});

describe("reference links", () => {
  it("root-relative links become Redoc's hash routes, outside scripts only", () => {
    const html = '<a href="/orders">Orders</a><a class="x" href="/section/signing">S</a><a href="//cdn.example/x">c</a><a href="guides/a.html">g</a><script>var s = \'<a href="/keep">\';</script>';
    expect(hashRoutes(html)).toBe('<a href="#/orders">Orders</a><a class="x" href="#/section/signing">S</a><a href="//cdn.example/x">c</a><a href="guides/a.html">g</a><script>var s = \'<a href="/keep">\';</script>');
  });
});

describe("guide pages on a phone", () => {
  it("wide tables scroll in a named region the keyboard can reach; an empty header cell is an ordinary cell", () => {
    const html = scrollableTables("<table>\n<thead>\n<tr>\n<th></th>\n<th>Code</th>\n</tr>\n</thead><tbody><tr><td>a</td><td>b</td></tr></tbody></table>");
    expect(html).toMatch(/^<div class="table-scroll" role="region" tabindex="0" aria-label="Table 1: Code"><table>/);
    expect(html).toContain("<td></td>");
    expect(html).not.toContain("<th></th>");
  });
});

describe("the search index", () => {
  it("links each guide section by the anchor its page has, and each operation by its Redoc route", () => {
    const guides = listGuides(join(root, "docs"));
    const signing = guides.find((g) => g.name === "signing")!;
    const page = renderGuide(signing, guides);
    const entries = guideEntries(signing);
    expect(entries.length).toBeGreaterThan(3);
    for (const entry of entries) expect(page, entry.href).toContain(`id="${entry.href.split("#")[1]}"`);
    const spec = JSON.parse(readFileSync(join(root, "generated", "signed.openapi.json"), "utf8"));
    const operations = referenceEntries("signed", "Signed API", spec);
    expect(operations).toContainEqual(expect.objectContaining({ title: expect.stringContaining("(createOrder)"), href: "signed.html#/orders/createorder" }));
    expect(operations).toContainEqual(expect.objectContaining({ href: "signed.html#/section/signing" }));
  });
});

describe("buildSite", () => {
  it("renders every bundled spec and every guide, offline", async () => {
    const result = await buildSite({ root, outDir: tempDir() });
    console.log(`docs build: ${result.totalMs} ms ${JSON.stringify(result.timings)}`);
    const specs = ["signed", "keyed", "sandbox-control"].filter((name) => existsSync(join(root, "generated", `${name}.openapi.json`)));
    expect(result.references.map((r) => r.name)).toEqual(specs);
    for (const name of specs) {
      const html = readFileSync(join(result.outDir, `${name}.html`), "utf8");
      expect(html).toContain("__redoc_definition");
      expect(findRemoteResources(html)).toEqual([]);
    }
    const guides = readFileSync(join(result.outDir, "index.html"), "utf8");
    for (const name of result.guides) {
      expect(existsSync(join(result.outDir, "guides", `${name}.html`))).toBe(true);
      expect(guides).toContain(`href="guides/${name}.html"`);
    }
    expect(result.guides).toContain("decisions");
    expect(result.guides).toContain("changelog");

    // Every page has the one site header, and every link of the site resolves on disk.
    for (const page of ["index.html", "signed.html", "keyed.html", "sandbox-control.html", ...result.guides.map((g) => `guides/${g}.html`)]) {
      const html = readFileSync(join(result.outDir, page), "utf8");
      const header = /<header[^>]*>([\s\S]*?)<\/header>/.exec(html.replace(/<script\b[\s\S]*?<\/script>/gi, ""))?.[1] ?? "";
      const hrefs = [...header.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/^\.\.\//, ""));
      expect(hrefs, page).toEqual(SITE_LINKS.map((l) => l.href));
    }
    const onDisk = await crawl(pathToFileURL(join(result.outDir, "index.html")), async (url) => {
      const path = fileURLToPath(url);
      return existsSync(path) ? { ok: true, html: readFileSync(path, "utf8") } : { ok: false, status: 404 };
    });
    expect(onDisk.broken).toEqual([]);
    expect(onDisk.pages.length).toBe(4 + result.guides.length);
    expect(onDisk.links).toBeGreaterThan(100);
    // The spec's "docs/errors.md" mentions became links in the references.
    expect(readFileSync(join(result.outDir, "signed.html"), "utf8")).toContain("[docs/errors.md](guides/errors.html)");
  }, 60_000);
});
