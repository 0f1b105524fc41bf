// What the browser tests share beyond launching Chromium (chromium.ts): a page that records
// every request leaving the server under test and every console error, and axe-core's
// accessibility check run inside the page.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";

export interface CheckedPage {
  context: BrowserContext;
  page: Page;
  /** URLs requested from anywhere but the origin under test. */
  outside: string[];
  /** Console errors and uncaught exceptions of the page. */
  problems: string[];
}

export interface CheckedPageOptions {
  width?: number;
  height?: number;
  /** Grant clipboard access (for "copy" buttons) to this origin. */
  clipboard?: boolean;
}

export async function openCheckedPage(browser: Browser, origin: string, options: CheckedPageOptions = {}): Promise<CheckedPage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 } });
  if (options.clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const outside: string[] = [];
  context.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob|about):/.test(url)) outside.push(url);
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  page.on("pageerror", (error) => problems.push(error.message));
  return { context, page, outside, problems };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's WCAG 2.x A and AA rules and its best practices, run in the page as it is now;
 * each violation as "rule (impact): target … — help". Evaluated through the debugging protocol,
 * so a page's Content-Security-Policy (no inline script) does not stop it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  // A string, not a function: this project is typed without the DOM library.
  const violations = await page.evaluate<string[]>(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
    return result.violations.map((v) => v.id + " (" + v.impact + "): " + v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ") + " — " + v.help);
  })()`);
  return violations;
}

/** How far the page scrolls sideways (0 when it fits its viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
}
