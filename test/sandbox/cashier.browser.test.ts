// The cashier page in a real browser (Debian's Chromium through playwright-core): a user opens
// the cashierUrl, sees the trade, clicks Pay, sees SUCCESS, and the app's receiver gets the
// signed payment.succeeded callback.
import type { Browser } from "playwright-core";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/json/index.js";
import { createMemoryNonceStore, verifySignedRequest } from "../../src/signing/index.js";
import { DEMO, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

const title = browserSuite("cashier page in Chromium");

describe.skipIf(!hasChromium)(title, () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [50] });
    receiver = await startReceiver();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await sb?.close();
  });

  it("shows the trade, pays it, and the callback arrives", async () => {
    const attach = '{"cartId":"c-889","note":"<b>bold</b>"}';
    const { tradeNo, cashierUrl } = await sb.createTrade({
      subject: "Tea <b>house</b> order",
      totalAmount: 4250,
      notifyUrl: receiver.url,
      returnUrl: "https://app.example.com/orders/1",
      attach,
    });
    const context = await browser.newContext();
    const outside: string[] = [];
    context.on("request", (request) => {
      if (!request.url().startsWith(sb.url)) outside.push(request.url());
    });
    const page = await context.newPage();
    await page.goto(cashierUrl);

    await expect(page.title()).resolves.toBe("Tea <b>house</b> order – sandbox cashier");
    expect(await page.locator("#subject").textContent()).toBe("Tea <b>house</b> order");
    expect(await page.locator("#amount").textContent()).toBe("¥42.50");
    expect(await page.locator("#status").textContent()).toBe("WAIT_BUYER_PAY");
    expect(await page.locator("#expires").getAttribute("datetime")).toBe("2026-11-22T10:45:30+08:00");
    expect(await page.locator("b").count()).toBe(0);

    await page.getByRole("button", { name: "Pay ¥42.50" }).click();
    await page.waitForURL((url) => url.pathname === `/cashier/${tradeNo}` && url.searchParams.get("done") === "paid" && url.searchParams.get("key") === new URL(cashierUrl).searchParams.get("key"));
    expect(await page.locator("#status").textContent()).toBe("SUCCESS");
    expect(await page.getByRole("status").textContent()).toBe("Payment successful.");
    expect(await page.getByRole("link", { name: "Return to the merchant" }).getAttribute("href")).toBe("https://app.example.com/orders/1");
    expect(await page.getByRole("button").count()).toBe(0);
    expect(outside).toEqual([]);
    await context.close();

    const [delivery] = await receiver.waitFor(1);
    const event = parseJsonLossless(delivery!.body) as { type: string; data: { tradeNo: string; attach: string; tradeStatus: string } };
    expect(event.type).toBe("payment.succeeded");
    expect(event.data).toMatchObject({ tradeNo, tradeStatus: "SUCCESS", attach });
    const verified = await verifySignedRequest({ headers: delivery!.headers, body: delivery!.body, secretsFor: () => [DEMO.appSecret], now: () => sb.sandbox.clock.now(), nonceStore: createMemoryNonceStore() });
    expect(verified.ok).toBe(true);
    expect(sb.logs.errors).toEqual([]);
  }, 60_000);

  it("offers the test outcomes: a payment whose result is unknown for a minute, then paid with its callback", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ notifyUrl: receiver.url });
    const page = await browser.newPage();
    await page.goto(cashierUrl);
    await page.getByRole("group", { name: "Test outcomes" }).getByRole("button", { name: "Pay, result unknown for 60 s, then paid" }).click();
    await page.waitForURL((url) => url.searchParams.get("done") === "unknown");
    expect(await page.locator("#status").textContent()).toBe("UNKNOWN");
    expect(await page.getByRole("status").textContent()).toBe("Payment submitted; its result is not known yet.");
    expect(await page.locator("#unknown").textContent()).toMatch(/the sandbox settles it at .* \(paid\)\./);
    expect(await page.getByRole("button").count()).toBe(0);
    const before = receiver.received.length;
    expect((await sb.control("POST", "/clock/advance", { seconds: 60 })).json.code).toBe(0);
    await page.reload();
    expect(await page.locator("#status").textContent()).toBe("SUCCESS");
    const delivered = await receiver.waitFor(before + 1);
    expect(JSON.parse(delivered.at(-1)!.body).data.tradeNo).toBe(tradeNo);
    await page.close();
  }, 60_000);

  it("closes a trade with the Close button", async () => {
    const { cashierUrl } = await sb.createTrade();
    const page = await browser.newPage();
    await page.goto(cashierUrl);
    await page.getByRole("button", { name: "Close" }).click();
    await page.waitForURL((url) => url.searchParams.get("done") === "closed");
    expect(await page.locator("#status").textContent()).toBe("CLOSED");
    await page.close();
  }, 60_000);
});
