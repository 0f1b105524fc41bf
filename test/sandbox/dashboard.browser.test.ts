// The dashboard in a real browser (Debian's Chromium through playwright-core), used as a
// developer would: pay a trade and watch its callback, resend it with the keyboard alone after
// a reload while the page keeps updating, open a request's detail (its body, a refusal's
// diagnosis and the API's message), select and copy the string to sign, reset the moved clock,
// filter the requests; the connection status follows the sandbox going away and coming back;
// axe finds no violation at 1280 and 390 px, and nothing scrolls sideways on a phone. Nothing is
// loaded from anywhere but the sandbox. Screenshots at both widths are kept.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { axeViolations, openCheckedPage, sidewaysOverflow, type CheckedPage } from "../support/browser.js";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { DEMO, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

const title = browserSuite("sandbox dashboard in Chromium");

describe.skipIf(!hasChromium)(title, () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let browser: Browser;
  const opened: CheckedPage[] = [];
  const screenshots = mkdtempSync(join(tmpdir(), "mop-dashboard-screens-"));

  beforeAll(async () => {
    sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [3_600_000] });
    receiver = await startReceiver();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const { outside, problems } of opened) {
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    }
    await browser?.close();
    await receiver?.close();
    await sb?.close();
  });

  async function dashboard(options: Parameters<typeof openCheckedPage>[2] = {}): Promise<Page> {
    const checked = await openCheckedPage(browser, sb.url, options);
    opened.push(checked);
    await checked.page.goto(`${sb.url}/sandbox/ui`);
    await expect.poll(() => checked.page.locator("#connection").textContent(), { timeout: 10_000 }).toContain("Live");
    return checked.page;
  }

  /** The row of the newest request whose text contains `part`. */
  const requestRow = (page: Page, part: string) => page.locator("#requests tbody tr").filter({ hasText: part }).first();

  it("pays a trade, shows the callback with its payload and the receiver's answer, and advances the clock", async () => {
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiver.url, totalAmount: 4250 });
    receiver.script.push({ status: 500 }); // the first attempt is refused
    const page = await dashboard();
    const trade = page.locator(`tr[data-trade="${tradeNo}"]`);
    await expect.poll(() => trade.locator(".trade-status").textContent(), { timeout: 10_000 }).toBe("WAIT_BUYER_PAY");
    await expect.poll(() => page.locator("#requests").innerText()).toContain("createCashierSession");

    await trade.getByRole("button", { name: "Pay" }).click();
    await expect.poll(() => trade.locator(".trade-status").textContent(), { timeout: 10_000 }).toBe("SUCCESS");
    expect(await page.locator("#status").textContent()).toBe(`Pay ${tradeNo}: done.`);

    const delivery = page.locator(".delivery").filter({ hasText: tradeNo });
    await expect.poll(() => delivery.locator(".attempts li").count(), { timeout: 10_000 }).toBe(1);
    const first = delivery.locator(".attempts li").first();
    expect(await first.innerText()).toContain("HTTP 500");
    expect(await first.locator(".trigger").innerText()).toBe("scheduled");
    expect(await first.locator(".response").innerText()).toBe("fail");
    await first.getByText("Signature headers sent").click();
    expect(await first.locator(".sent-headers").innerText()).toMatch(/X-Sign: .{6}… \(44 characters, masked\)/);
    await delivery.getByText("Payload").click();
    expect(await delivery.locator(".payload-text").innerText()).toBe(receiver.received[0]!.body);
    // Open details stay open through the updates that follow.
    await page.waitForTimeout(1500);
    expect(await delivery.locator("details.payload").getAttribute("open")).toBe("");

    const before = sb.sandbox.clock.now();
    await page.locator("#advance-seconds").fill("3600");
    await page.getByRole("button", { name: "Advance the clock" }).click();
    await expect.poll(() => page.locator("#clock-offset").textContent(), { timeout: 10_000 }).toBe("(moved 3600 s ahead of real time)");
    expect(sb.sandbox.clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
    await page.screenshot({ path: join(screenshots, "dashboard-1280.png"), fullPage: true });
  }, 60_000);

  it("resends a callback with the keyboard alone after a reload, while the page keeps updating", async () => {
    const page = await dashboard();
    const delivery = page.locator(".delivery").first();
    await delivery.waitFor();
    const eventId = await delivery.getAttribute("data-event");
    const attempts = await delivery.locator(".attempts li").count();
    await page.reload();
    await expect.poll(() => page.locator(".delivery").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    // Tab until the first card's Resend button has the focus.
    let reached = false;
    for (let i = 0; i < 300 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate<boolean>(
        `document.activeElement?.textContent === "Resend" && document.activeElement.closest(".delivery")?.getAttribute("data-event") === ${JSON.stringify(eventId)}`,
      );
    }
    expect(reached).toBe(true);
    await page.waitForTimeout(2500); // two updates of the page
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Resend");
    const received = receiver.received.length;
    await page.keyboard.press("Enter");
    await receiver.waitFor(received + 1);
    await expect.poll(() => page.locator(`.delivery[data-event="${eventId}"] .attempts li`).count(), { timeout: 10_000 }).toBe(attempts + 1);
    expect(await page.locator(`.delivery[data-event="${eventId}"] .attempts li`).last().locator(".trigger").innerText()).toBe("manual resend");
    await expect.poll(() => page.locator(`.delivery[data-event="${eventId}"] .state`).innerText()).toBe("delivered");
  }, 60_000);

  it("shows a refused signature's diagnosis; the string to sign stays selected through updates and copies", async () => {
    const page = await dashboard({ clipboard: true });
    const body = { openUserId: "x-1" };
    const refused = await sb.signed({ path: "/customers/sync", body, app: { appKey: DEMO.appKey, appSecret: "wrong-secret" }, nonce: "nonce-browser-1" });
    expect(refused.status).toBe(401);
    const row = requestRow(page, "SIGNATURE_MISMATCH");
    await row.waitFor({ timeout: 10_000 });
    await row.getByRole("button").click();
    const expected = page.locator("#detail pre.expected");
    await expected.waitFor();
    const text = await expected.textContent();
    expect(text).toContain("nonce-browser-1" + JSON.stringify(body));
    expect(await page.evaluate<string>("document.activeElement?.id")).toBe("detail-h");
    // Select it as a person would (a triple click selects the block), wait through updates.
    await expected.click({ clickCount: 3 });
    await page.waitForTimeout(2500);
    expect((await page.evaluate<string>("String(window.getSelection())")).trim()).toBe(text);
    await page.getByRole("button", { name: "Copy the string to sign" }).click();
    await expect.poll(() => page.evaluate<string>("navigator.clipboard.readText()")).toBe(text);
    expect(await page.locator("#detail").innerText()).not.toContain(DEMO.appSecret);
    expect(await page.locator("#detail pre.received").innerText()).toMatch(/X-Sign: .{6}… \(44 characters, masked\)/);
  }, 60_000);

  it("explains a POST refused before its body was read, and a 100009 by the API's own message; shows a request body; copies a curl", async () => {
    const page = await dashboard({ clipboard: true });
    const stale = await sb.signed({ path: "/orders", body: { merchantId: 10001 }, timestamp: String(Math.floor(sb.sandbox.clock.now() / 1000) - 3600) });
    expect(stale.json.code).toBe(100004);
    const staleRow = requestRow(page, "TIMESTAMP_OUT_OF_WINDOW");
    await staleRow.waitFor({ timeout: 10_000 });
    expect(await staleRow.innerText()).toContain("createOrder");
    await staleRow.getByRole("button").click();
    await expect.poll(() => page.locator("#detail").innerText()).toContain("Signature diagnosis");
    expect(await page.locator("#detail").innerText()).toContain("the request was refused before its body was read");

    const invalid = await sb.signed({ path: "/customers/sync", body: { openUserId: "" } });
    expect(invalid.json.code).toBe(100009);
    const invalidRow = requestRow(page, "VALIDATION_FAILED");
    await invalidRow.waitFor({ timeout: 10_000 });
    expect(await invalidRow.innerText()).toContain(invalid.json.msg);

    await sb.signed({ path: "/customers/sync", body: { openUserId: "browser-body-1", nickname: "Ada" } });
    const okRow = requestRow(page, "/customers/sync").filter({ hasNotText: "VALIDATION_FAILED" });
    await okRow.waitFor({ timeout: 10_000 });
    await okRow.getByRole("button").click();
    await expect.poll(() => page.locator("#detail pre.body").first().textContent()).toBe(JSON.stringify({ openUserId: "browser-body-1", nickname: "Ada" }));
    await page.getByRole("button", { name: "Copy as curl" }).click();
    const curl = await page.evaluate<string>("navigator.clipboard.readText()");
    expect(curl).toContain(`--curl '${sb.url}/open-api/v1/customers/sync'`);
    expect(curl).toContain('"$MOP_APP_SECRET"');
  }, 60_000);

  it("filters requests by status, operation and app, and resets the moved clock", async () => {
    const page = await dashboard();
    await sb.signed({ path: "/merchants?pageNo=1" });
    await expect.poll(() => page.locator("#filter-operation option").allTextContents(), { timeout: 10_000 }).toContain("listMerchants");
    await page.locator("#filter-operation").selectOption("listMerchants");
    const visible = page.locator("#requests tbody tr:not([hidden])");
    expect((await visible.allInnerTexts()).every((t) => t.includes("listMerchants"))).toBe(true);
    await page.locator("#filter-operation").selectOption("");
    await page.locator("#filter-status").selectOption("refused");
    expect((await visible.allInnerTexts()).length).toBeGreaterThan(0);
    expect((await visible.allInnerTexts()).some((t) => t.includes("listMerchants"))).toBe(false);
    await page.locator("#filter-status").selectOption("");
    await page.locator("#filter-app").selectOption(DEMO.appKey);
    expect(await visible.count()).toBeGreaterThan(0);
    await page.locator("#filter-app").selectOption("");

    if (sb.sandbox.clock.offsetMs === 0) await sb.control("POST", "/clock/advance", { seconds: 600 });
    await expect.poll(() => page.locator("#clock-offset").textContent(), { timeout: 10_000 }).toContain("s ahead of real time");
    await page.getByRole("button", { name: "Reset the clock" }).click();
    await expect.poll(() => page.locator("#clock-offset").textContent(), { timeout: 10_000 }).toBe("(real time)");
    expect(sb.sandbox.clock.offsetMs).toBe(0);
    expect(await page.getByRole("button", { name: "Reset the clock" }).isDisabled()).toBe(true);
  }, 60_000);

  it("pauses and resumes live updates with a visible control", async () => {
    const page = await dashboard();
    await page.getByRole("button", { name: "Pause live updates" }).click();
    expect(await page.locator("#pause").getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator("#connection").textContent()).toContain("Paused");
    const rows = await page.locator("#requests tbody tr").count();
    await sb.signed({ path: "/merchants?pageNo=2" });
    await page.waitForTimeout(1500);
    expect(await page.locator("#requests tbody tr").count()).toBe(rows);
    await page.getByRole("button", { name: "Resume live updates" }).click();
    await expect.poll(() => page.locator("#requests").innerText(), { timeout: 10_000 }).toContain("pageNo=2");
  }, 30_000);

  it("has no axe violation at 1280 and 390 px, and nothing scrolls sideways on a phone", async () => {
    // The check can fail: a page with a known violation is reported.
    const probe = await browser.newPage();
    await probe.setContent('<!DOCTYPE html><html lang="en"><title>t</title><main><img src="data:,"></main></html>');
    expect((await axeViolations(probe)).join("\n")).toContain("image-alt");
    await probe.close();
    await sb.signed({ path: "/customers/sync", body: { openUserId: "" } }); // a refusal to show
    for (const width of [1280, 390]) {
      const page = await dashboard({ width, height: 844 });
      await page.locator("#requests tbody tr").first().getByRole("button").click({ timeout: 10_000 });
      await page.locator("#detail pre").first().waitFor();
      expect(await axeViolations(page), `${width} px`).toEqual([]);
      expect(await sidewaysOverflow(page), `${width} px`).toBe(0);
      await page.screenshot({ path: join(screenshots, `dashboard-${width}-detail.png`), fullPage: true });
    }
    console.log(`dashboard screenshots: ${screenshots}`);
  }, 60_000);
});

describe.skipIf(!hasChromium)(browserSuite("sandbox dashboard connection status in Chromium"), () => {
  it("says the sandbox does not answer while it is down, and clears that once it is back", async () => {
    const browser = await launchChromium();
    const first = createSandbox({});
    const { url } = await first.listen({ port: 0, host: "127.0.0.1" });
    const port = Number(new URL(url).port);
    const { page, context } = await openCheckedPage(browser, url);
    try {
      await page.goto(`${url}/sandbox/ui`);
      await expect.poll(() => page.locator("#connection").textContent(), { timeout: 10_000 }).toContain("Live");
      await first.close();
      await expect.poll(() => page.locator("#connection").textContent(), { timeout: 10_000 }).toContain("The sandbox does not answer");
      const second = createSandbox({});
      await second.listen({ port, host: "127.0.0.1" });
      try {
        await expect.poll(() => page.locator("#connection").textContent(), { timeout: 10_000 }).toBe("Live: the page updates every second");
        expect(await page.locator("#status").textContent()).toBe("");
      } finally {
        await second.close();
      }
    } finally {
      await context.close();
      await browser.close();
    }
  }, 60_000);
});
