// The dashboard in a real browser (Debian's Chromium through playwright-core): a developer
// opens /sandbox/ui, pays a trade with its button and sees the callback attempt appear; a
// receiver that refuses shows its answer, and Resend delivers once it accepts; advancing the
// clock moves the shown time; a refused signature shows the expected string to sign. Nothing
// is loaded from anywhere but the sandbox. Screenshots at desktop and phone widths are kept.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO, startReceiver, startSandbox, type Receiver, type TestSandbox } from "./helpers.js";

const title = browserSuite("sandbox dashboard in Chromium");

describe.skipIf(!hasChromium)(title, () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let browser: Browser;
  const screenshots = mkdtempSync(join(tmpdir(), "mop-dashboard-screens-"));

  beforeAll(async () => {
    sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [3_600_000] });
    receiver = await startReceiver();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await sb?.close();
  });

  it("pays a trade from the dashboard, shows the callback attempt and its refusal, resends it, and advances the clock", async () => {
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiver.url, totalAmount: 4250 });
    receiver.script.push({ status: 500 }); // the first attempt is refused
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    context.on("request", (request) => {
      if (!request.url().startsWith(sb.url)) outside.push(request.url());
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${sb.url}/sandbox/ui`);

    const trade = page.locator(`tr[data-trade="${tradeNo}"]`);
    await expect.poll(() => trade.locator(".trade-status").textContent(), { timeout: 10_000 }).toBe("WAIT_BUYER_PAY");
    // The signed createCashierSession shows among the latest requests.
    await expect.poll(() => page.locator("#requests").innerText()).toContain("createCashierSession");

    await trade.getByRole("button", { name: "Pay" }).click();
    await expect.poll(() => trade.locator(".trade-status").textContent(), { timeout: 10_000 }).toBe("SUCCESS");
    expect(await page.getByRole("status").textContent()).toBe(`Pay ${tradeNo}: done.`);

    // The callback's first attempt appears, refused, with the receiver's answer.
    const delivery = page.locator(".delivery").filter({ hasText: tradeNo });
    await expect.poll(() => delivery.locator(".attempts li").count(), { timeout: 10_000 }).toBe(1);
    const first = await delivery.locator(".attempts li").first().innerText();
    expect(first).toContain("HTTP 500");
    expect(first).toContain("fail"); // the start of the receiver's answer body
    expect(receiver.received).toHaveLength(1);
    await page.screenshot({ path: join(screenshots, "dashboard-1280.png"), fullPage: true });

    // Resend: the receiver now accepts; a second attempt, acknowledged.
    await delivery.getByRole("button", { name: "Resend" }).click();
    await expect.poll(() => delivery.locator(".attempts li").count(), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => delivery.locator("h3").innerText()).toContain("delivered");
    expect(receiver.received).toHaveLength(2);

    // The clock control moves the sandbox clock, and the page shows it.
    const before = sb.sandbox.clock.now();
    await page.locator("#advance-seconds").fill("3600");
    await page.getByRole("button", { name: "Advance the clock" }).click();
    await expect.poll(() => page.locator("#clock-offset").textContent(), { timeout: 10_000 }).toBe("(moved 3600 s ahead)");
    expect(sb.sandbox.clock.now() - before).toBeGreaterThanOrEqual(3_600_000);

    // A refused signature: the expected string to sign next to what arrived.
    const refused = await sb.signed({ path: "/customers/sync", body: { openUserId: "x-1" }, app: { appKey: DEMO.appKey, appSecret: "wrong-secret" } });
    expect(refused.status).toBe(401);
    const expected = page.locator("#requests tr.refusal pre.expected").first();
    await expect.poll(() => expected.textContent(), { timeout: 10_000 }).toContain('{"openUserId":"x-1"}');
    expect(await page.locator("#requests").innerText()).not.toContain(DEMO.appSecret);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(screenshots, "dashboard-390.png"), fullPage: true });
    console.log(`dashboard screenshots: ${screenshots}`);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
