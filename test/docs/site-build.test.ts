// The docs build without a browser: the offline scan, the guide link rewriting, and a full
// build of the site into a temporary folder.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rewriteHref, slugify } from "../../scripts/docs/guides.js";
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
  const guides = new Set(["decisions", "errors"]);

  it.each([
    ["decisions.md", "decisions.html"],
    ["./errors.md#codes", "errors.html#codes"],
    ["source/merchant-open-platform-interface.md", "../../source/merchant-open-platform-interface.md"],
    ["../openapi/errors.yaml", "../../../openapi/errors.yaml"],
    ["missing.md", "../../missing.md"],
    ["https://example.com/a.md", "https://example.com/a.md"],
    ["#local", "#local"],
  ])("%s → %s", (href, expected) => {
    expect(rewriteHref(href, guides)).toBe(expected);
  });

  it("heading anchors follow GitHub's", () => {
    expect(slugify("The `x-` extensions used in the specs")).toBe("the-x--extensions-used-in-the-specs");
    expect(slugify("Decisions (DESIGN items 1–13)")).toBe("decisions-design-items-113");
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
  }, 60_000);
});
