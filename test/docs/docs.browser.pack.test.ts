// The docs site in a real browser (Debian's Chromium through playwright-core): the references
// render every operation and callback, the index and a guide work, and no request leaves
// 127.0.0.1. The site is built by the same code as `npm run docs`, into a temporary folder,
// so the test neither needs nor disturbs docs/site/.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SITE_LINKS } from "../../scripts/docs/page.js";
import { buildSite, type SiteResult } from "../../scripts/docs/site.js";
import { packageRoot } from "../../src/util/package-root.js";
import { serveDirectory, type StaticServer } from "./static-server.js";
import { axeViolations, sidewaysOverflow } from "../support/browser.js";

const title = browserSuite("docs site in Chromium");

const root = packageRoot();
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

interface Entry {
  id: string;
  tag: string;
  summary: string;
}
type Spec = Record<string, any>;

const loadSpec = (name: string): Spec => JSON.parse(readFileSync(join(root, "generated", `${name}.openapi.json`), "utf8")) as Spec;

/** Operations (or callbacks) with the tag Redoc files them under and the heading it shows. */
function entries(items: Record<string, Record<string, any>> | undefined, fallbackId: (key: string) => string): Entry[] {
  return Object.entries(items ?? {}).flatMap(([key, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([, op]) => ({ id: String(op.operationId ?? fallbackId(key)), tag: String(op.tags?.[0] ?? ""), summary: String(op.summary ?? "") })),
  );
}

/** Redoc 3's hash route of an operation: #/<tag slug>/<operationId in lower case>. */
const route = (entry: Entry) => `${entry.tag.toLowerCase().replace(/\s+/g, "-")}/${entry.id.toLowerCase()}`;

describe.skipIf(!hasChromium)(title, () => {
  let site: SiteResult;
  let server: StaticServer;
  let browser: Browser;
  let context: BrowserContext;
  const requests: string[] = [];
  const screenshots = mkdtempSync(join(tmpdir(), "mop-docs-screens-"));

  beforeAll(async () => {
    site = await buildSite({ root, outDir: mkdtempSync(join(tmpdir(), "mop-docs-site-")) });
    server = await serveDirectory(site.outDir);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Every request of every page is recorded; one for another host is answered locally with
    // an error so that a regression fails fast instead of waiting on the network.
    context.on("request", (request) => requests.push(request.url()));
    await context.route((url) => url.origin !== server.origin, (r) => r.abort());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (site) rmSync(site.outDir, { recursive: true, force: true });
  });

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(`${server.origin}/${path}`);
    expect(response?.status(), path).toBe(200);
    return page;
  }

  /** Redoc shows "Loading..." (its search index) until the page is fully hydrated. */
  async function expectLoaded(page: Page): Promise<void> {
    await expect.poll(() => page.locator("body").innerText(), { timeout: 10_000 }).not.toContain("Loading");
  }

  /** Goes to an operation's route and returns the text of its section once rendered. */
  async function section(page: Page, file: string, entry: Entry): Promise<string> {
    await page.goto(`${server.origin}/${file}#/${route(entry)}`);
    const element = page.locator(`[id="${route(entry)}"]`);
    await element.waitFor({ state: "attached", timeout: 10_000 });
    return element.innerText();
  }

  it("the signed reference has a section for every operation and the three callbacks", async () => {
    const spec = loadSpec("signed");
    const operations = entries(spec.paths, (key) => key);
    const callbacks = entries(spec.webhooks, (key) => key);
    expect(callbacks).toHaveLength(3);
    const page = await open("signed.html");
    await page.locator("#api-content").waitFor();
    for (const entry of [...operations, ...callbacks]) {
      expect(await section(page, "signed.html", entry), entry.id).toContain(entry.summary);
    }
    await expectLoaded(page);
    const file = join(screenshots, "signed-reference.png");
    await page.screenshot({ path: file });
    console.log(`screenshot of the signed reference: ${file}`);
    await page.close();
  }, 60_000);

  it("the keyed reference shows its operation", async () => {
    const spec = loadSpec("keyed");
    const operations = entries(spec.paths, (key) => key);
    expect(operations.length).toBeGreaterThan(0);
    const page = await open("keyed.html");
    for (const entry of operations) expect(await section(page, "keyed.html", entry), entry.id).toContain(entry.summary);
    await expectLoaded(page);
    await page.close();
  });

  it("the index links every reference and every guide, and each link works", async () => {
    const page = await open("index.html");
    const hrefs = await page.locator("main a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    const expected = [...site.references.map((r) => `${r.name}.html`), ...site.guides.map((g) => `guides/${g}.html`)];
    expect(site.references.map((r) => r.name)).toEqual(expect.arrayContaining(["signed", "keyed"]));
    expect(site.guides.length).toBeGreaterThan(0);
    expect(hrefs.sort()).toEqual(expected.sort());
    for (const href of expected) {
      const response = await page.request.get(`${server.origin}/${href}`);
      expect(response.status(), href).toBe(200);
    }
    expect(await page.locator("h1").innerText()).toBe("Merchant Open Platform");
    await page.screenshot({ path: join(screenshots, "index.png") });
    await page.close();
  });

  it("a guide renders, with links to other guides rewritten to .html", async () => {
    const guide = site.guides.includes("decisions") ? "decisions" : site.guides[0]!;
    const markdown = readFileSync(join(root, "docs", `${guide}.md`), "utf8");
    const page = await open(`guides/${guide}.html`);
    expect(await page.locator("main h1").innerText()).toBe(/^#\s+(.+)$/m.exec(markdown)![1]!.replace(/`/g, ""));
    if (/\|\s*---/.test(markdown)) expect(await page.locator("main table").count()).toBeGreaterThan(0);
    const hrefs = await page.locator("main a").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    expect(hrefs.filter((h) => /\.md(#|$)/.test(h) && !h.startsWith("../"))).toEqual([]);
    const sibling = hrefs.find((h) => /^[\w-]+\.html(#.*)?$/.test(h));
    if (sibling) {
      await page.locator(`main a[href="${sibling}"]`).first().click();
      await page.waitForURL(`**/guides/${sibling.split("#")[0]}*`);
      expect(await page.locator("main h1").count()).toBe(1);
    }
    await page.close();
  });

  it("every page has the one site header, at desktop and phone widths (screenshots kept)", async () => {
    const pages = ["index.html", "guides/quickstart.html", "guides/changelog.html", "signed.html", "sandbox-control.html"];
    for (const [width, height] of [[1280, 900], [390, 844]] as const) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      for (const path of pages) {
        const response = await page.goto(`${server.origin}/${path}`);
        expect(response?.status(), path).toBe(200);
        const nav = page.locator('header nav[aria-label="Site"] a');
        expect(await nav.allInnerTexts(), path).toEqual(SITE_LINKS.map((l) => l.label));
        // The header fits: no link runs off the right edge, at either width.
        for (const box of await nav.evaluateAll((links) => links.map((a) => a.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(width);
        if (path.endsWith("signed.html")) await expectLoaded(page);
        const file = join(screenshots, `${path.replace(/[/.]/g, "-")}-${width}.png`);
        await page.screenshot({ path: file });
      }
      await page.close();
    }
    console.log(`docs screenshots (desktop 1280 and phone 390 wide): ${screenshots}`);
  }, 60_000);

  it("guides lead to each other (previous / next)", async () => {
    const page = await open("guides/quickstart.html");
    const next = page.locator('nav.pager a[rel="next"]');
    const title = await next.innerText();
    await next.click();
    await page.waitForURL(/guides\/(?!quickstart)[\w-]+\.html$/);
    expect(`${await page.locator("main h1").innerText()} →`).toBe(title);
    expect(await page.locator('nav.pager a[rel="prev"]').getAttribute("href")).toBe("quickstart.html");
    await page.close();
  }, 30_000);

  it("search snippets keep the space between wrapped lines", async () => {
    const page = await open("signed.html");
    await page.locator("#api-content").waitFor();
    await page.getByTestId("search-trigger").click({ timeout: 15_000 });
    await page.keyboard.type("arrives");
    // The result's snippet: an excerpt that starts with "...", the match highlighted.
    const snippet = /\.\.\.[^\n]*arrives[^\n]*/;
    await expect.poll(async () => snippet.exec(await page.locator("body").innerText())?.[0] ?? "", { timeout: 15_000 }).toContain("the result arrives as the paymentSucceeded callback");
    const text = snippet.exec(await page.locator("body").innerText())![0];
    expect(text).not.toMatch(/resultarrives|paid\.The/);
    await page.close();
  }, 60_000);

  it("every link of every reference works opened directly (hash routes, none from the host's root)", async () => {
    let checked = 0;
    for (const { name } of site.references) {
      const page = await open(`${name}.html`);
      await expectLoaded(page);
      const hrefs = [...new Set(await page.locator("a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? "")))];
      expect(hrefs.filter((h) => h.startsWith("/") && !h.startsWith("//")), name).toEqual([]);
      const routes = hrefs.filter((h) => h.startsWith("#/"));
      expect(routes.length, name).toBeGreaterThan(0);
      // Every route leads somewhere on the page (followed in place, as a click does)…
      for (const route of routes) {
        await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
        if (route !== "#/") await page.locator(`[id="${route.slice(2)}"]`).waitFor({ state: "attached", timeout: 10_000 });
        checked += 1;
      }
      await page.close();
      // …and opens as a fresh page, as a person pasting it into a new tab gets it: one route of
      // each kind (the top, a section of the introduction, a tag).
      const kinds = ["#/", routes.find((r) => r.startsWith("#/section/")), routes.find((r) => r !== "#/" && !r.startsWith("#/section/"))];
      for (const route of kinds.filter((r): r is string => r !== undefined)) {
        const fresh = await context.newPage();
        const response = await fresh.goto(`${server.origin}/${name}.html${route}`);
        expect(response?.status(), route).toBe(200);
        if (route !== "#/") await fresh.locator(`[id="${route.slice(2)}"]`).waitFor({ state: "attached", timeout: 10_000 });
        expect(fresh.url(), route).toBe(`${server.origin}/${name}.html${route}`);
        await fresh.close();
      }
    }
    console.log(`reference links opened directly: ${checked}`);
  }, 240_000);

  it("one search finds guide sections and reference operations, and its results open them", async () => {
    const page = await open("guides/quickstart.html");
    await page.getByLabel("Search the docs").fill("outTradeNo");
    await page.getByRole("button", { name: "Search" }).first().click();
    await page.waitForURL(/search\.html\?q=outTradeNo$/);
    const results = page.locator("#results a");
    await expect.poll(() => results.count()).toBeGreaterThan(3);
    const hrefs = await results.evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    expect(hrefs.some((h) => h.startsWith("guides/")), "a guide").toBe(true);
    expect(hrefs.some((h) => /^signed\.html#\/payment\//.test(h)), "a signed operation").toBe(true);
    expect(await page.locator("#summary").innerText()).toMatch(/results? for/);
    const operation = page.locator('#results a[href="signed.html#/payment/createcashiersession"]');
    await operation.click();
    await page.waitForURL(/signed\.html#\/payment\/createcashiersession$/);
    await page.locator('[id="payment/createcashiersession"]').waitFor({ state: "attached", timeout: 10_000 });
    const guideHit = await open("search.html?q=string%20to%20sign");
    const first = guideHit.locator("#results a").first();
    await first.waitFor();
    const href = (await first.getAttribute("href"))!;
    await first.click();
    if (href.startsWith("guides/")) {
      await guideHit.waitForURL(`**/${href}`);
      expect(await guideHit.locator(`[id="${href.split("#")[1]}"]`).count()).toBe(1);
    }
    const none = await open("search.html?q=zzzznothing");
    expect(await none.locator("#summary").innerText()).toContain("Nothing found");
    await Promise.all([page.close(), guideHit.close(), none.close()]);
  }, 60_000);

  it("no guide scrolls sideways at 390 px, and axe finds no violation on the guides, the index and the search (every page at 390 px, a sample at 1280)", async () => {
    const every = ["index.html", "search.html?q=nonce", ...site.guides.map((g) => `guides/${g}.html`)];
    const sample = ["index.html", "search.html?q=nonce", "guides/quickstart.html", "guides/sandbox.html", "guides/decisions.html"];
    for (const [width, height, paths] of [[390, 844, every], [1280, 900, sample]] as const) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      for (const path of paths) {
        await page.goto(`${server.origin}/${path}`);
        expect(await sidewaysOverflow(page), `${path} at ${width} px`).toBe(0);
        expect(await axeViolations(page), `${path} at ${width} px`).toEqual([]);
      }
      await page.close();
    }
  }, 300_000);

  it("no request left 127.0.0.1", () => {
    expect(requests.length).toBeGreaterThan(0);
    const remote = requests.filter((url) => !url.startsWith(`${server.origin}/`) && !/^(data|blob|about):/.test(url));
    expect(remote).toEqual([]);
  });
});
