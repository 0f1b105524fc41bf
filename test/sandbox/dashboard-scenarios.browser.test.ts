// The dashboard's scenarios in a real browser (Debian's Chromium through playwright-core), used
// as a developer would: set a fault from the form with the keyboard alone, see the request it
// answered marked in the list and in its detail, filter on it, keep the focus on a Remove button
// while the page updates and remove the fault with the keyboard; the control API's refusal shown
// with its message; redeliver a callback from its card as a variant and see each redelivery,
// apart from the attempts, with what the receiver (the package's own callback handler) answered
// and whether a correct receiver answers that; axe finds no violation at 1280 and 390 px.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCallbackHandler } from "../../src/callbacks/index.js";
import { axeViolations, openCheckedPage, sidewaysOverflow, type CheckedPage } from "../support/browser.js";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

const title = browserSuite("sandbox dashboard scenarios in Chromium");

describe.skipIf(!hasChromium)(title, () => {
  let sb: TestSandbox;
  let browser: Browser;
  let receiver: Server;
  let receiverUrl: string;
  const opened: CheckedPage[] = [];
  const screenshots = mkdtempSync(join(tmpdir(), "mop-dashboard-scenarios-"));

  beforeAll(async () => {
    sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [3_600_000], callbackTimeoutMs: 2000 });
    // A receiver we did not write for the dashboard: the package's callback handler, which
    // refuses what a correct receiver refuses.
    const handler = createCallbackHandler({ secrets: [DEMO.appSecret], appKey: DEMO.appKey, now: () => sb.sandbox.clock.now(), onEvent: () => {} });
    receiver = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    browser = await launchChromium();
  }, 60_000);

  beforeEach(async () => {
    await sb.control("POST", "/clock/reset");
    await sb.control("POST", "/reset");
  });

  afterAll(async () => {
    for (const { outside, problems } of opened) {
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    }
    await browser?.close();
    await new Promise<void>((resolve) => {
      receiver?.close(() => resolve());
      receiver?.closeAllConnections();
    });
    await sb?.close();
  });

  async function dashboard(options: Parameters<typeof openCheckedPage>[2] = {}): Promise<Page> {
    const checked = await openCheckedPage(browser, sb.url, options);
    opened.push(checked);
    await checked.page.goto(`${sb.url}/sandbox/ui`);
    await expect.poll(() => checked.page.locator("#connection").textContent(), { timeout: 10_000 }).toContain("Live");
    await expect.poll(() => checked.page.locator("#fault-add").isEnabled(), { timeout: 10_000 }).toBe(true);
    return checked.page;
  }

  const focused = (page: Page) => page.evaluate<string>("document.activeElement?.id || document.activeElement?.getAttribute('aria-label') || document.activeElement?.textContent || ''");

  /** Presses Tab until `isThere` says the focus arrived (at most `limit` times). */
  async function tabTo(page: Page, isThere: string, limit = 400): Promise<void> {
    for (let i = 0; i < limit; i++) {
      if (await page.evaluate<boolean>(isThere)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`the focus never reached: ${isThere} (it is on ${await focused(page)})`);
  }

  async function paidEvent(): Promise<{ tradeNo: string; eventId: string }> {
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiverUrl });
    const eventId = (await sb.control("POST", `/trades/${tradeNo}/pay`)).json.data.eventId as string;
    await expect.poll(async () => (await sb.control("GET", `/callbacks?eventId=${eventId}`)).json.data.list[0].status, { timeout: 10_000 }).toBe("delivered");
    return { tradeNo, eventId };
  }

  it("sets a fault from the form with the keyboard alone, marks the request it answered, filters on it, and removes it", async () => {
    const page = await dashboard();
    await tabTo(page, `document.activeElement?.id === "fault-operation"`);
    // Choose by typing, as on any select: the options begin with the operationId.
    await page.keyboard.type("createCashierSession");
    expect(await page.locator("#fault-operation").inputValue()).toBe("createCashierSession");
    await page.keyboard.press("Tab");
    await page.keyboard.type("internal-error");
    expect(await page.locator("#fault-kind-hint").textContent()).toContain("internal-error: answers HTTP 500 with code 100099");
    await page.keyboard.press("Tab");
    await page.keyboard.type("after");
    expect(await page.locator("#fault-when-hint").textContent()).toContain("after: the operation is carried out");
    await page.keyboard.press("Tab"); // times (1)
    await page.keyboard.press("Tab"); // delay: empty
    // Retry-After applies to rate-limited and unavailable only: hidden, out of the tab order.
    expect(await page.locator("#fault-retry-after-field").isHidden()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("fault-app");
    await page.keyboard.type(DEMO.appKey);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("fault-add");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#fault-status").textContent(), { timeout: 10_000 }).toBe(
      "Add a fault: flt_1 set: the next request of createCashierSession signed by demo-app-key meets internal-error after.",
    );
    const [fault] = (await sb.control("GET", "/faults")).json.data.list;
    expect(fault).toMatchObject({ faultId: "flt_1", operationId: "createCashierSession", kind: "internal-error", when: "after", times: 1, remaining: 1, appKey: DEMO.appKey, delayMs: null });
    const activeRow = page.locator('#faults-active tr[data-fault="flt_1"]');
    await activeRow.waitFor({ timeout: 10_000 });
    expect(await activeRow.innerText()).toMatch(/createCashierSession\s+internal-error\s+after\s+1 of 1\s+demo-app-key/);

    // The request it answers: the trade is opened, the answer is a 500.
    const answer = await sb.signed({ path: "/payment/cashier/create", body: { merchantId: 10001, outTradeNo: "DASH-FAULT-1", totalAmount: 4250, subject: "Tea", notifyUrl: receiverUrl } });
    expect(answer.status).toBe(500);
    const row = page.locator("#requests tbody tr").filter({ hasText: "/payment/cashier/create" }).first();
    await expect.poll(() => row.locator(".fault-mark").textContent(), { timeout: 10_000 }).toBe("Fault flt_1: internal-error after · operation carried out");
    expect(await row.locator(".fault-mark").isVisible()).toBe(true);
    // Spent now: it moves to the spent faults, with the request it answered.
    const spentRow = page.locator('#faults-spent tr[data-fault="flt_1"]');
    await spentRow.waitFor({ timeout: 10_000 });
    expect(await page.locator('#faults-active tr[data-fault="flt_1"]').count()).toBe(0);
    expect(await spentRow.innerText()).toContain("0 of 1");
    await spentRow.getByText("Latest 1").click();
    expect(await spentRow.locator(".hits li").innerText()).toMatch(/POST \/open-api\/v1\/payment\/cashier\/create · demo-app-key · carried out \(code 0\) · answered HTTP 500 code 100099/);

    // The filter: only requests a fault answered.
    await sb.signed({ path: "/merchants?pageNo=1" });
    await expect.poll(() => page.locator("#requests").innerText(), { timeout: 10_000 }).toContain("pageNo=1");
    await page.locator("#filter-fault").focus();
    await page.keyboard.press("Space");
    const visible = page.locator("#requests tbody tr:not([hidden])");
    expect(await visible.count()).toBe(1);
    expect(await visible.first().innerText()).toContain("/payment/cashier/create");
    await page.keyboard.press("Space");
    expect(await visible.count()).toBeGreaterThan(1);

    // Its detail: the fault, its kind and meaning, and what became of the operation.
    await row.getByRole("button").click();
    await expect.poll(() => page.locator("#detail .fault-fact").textContent(), { timeout: 10_000 }).toBe(
      "fault flt_1: internal-error (answers HTTP 500 with code 100099 (key-based: 500)), after the operation, which was carried out and answered code 0; the fault's answer replaced that one.",
    );
    expect(await page.locator("#detail .fault-fact a").getAttribute("href")).toBe("#fault-flt_1");

    // A second fault, active, for three requests: its Remove keeps the focus while a request uses
    // it (its row changes) and the page updates.
    const second = (await sb.control("POST", "/faults", { operationId: "listMerchants", kind: "rate-limited", times: 3, retryAfterSeconds: 2 })).json.data.faultId as string;
    const secondRow = page.locator(`#faults-active tr[data-fault="${second}"]`);
    await secondRow.waitFor({ timeout: 10_000 });
    expect(await secondRow.innerText()).toContain("Retry-After 2 s");
    await page.locator("#faults-h").focus();
    await tabTo(page, `document.activeElement?.getAttribute("aria-label") === "Remove fault ${second}"`, 40);
    expect((await sb.signed({ path: "/merchants?pageNo=2" })).status).toBe(429);
    await expect.poll(() => secondRow.innerText(), { timeout: 10_000 }).toContain("2 of 3");
    await page.waitForTimeout(2500); // two more updates
    expect(await focused(page)).toBe(`Remove fault ${second}`);
    // Spent, it moves to the spent faults; its Remove keeps the focus.
    for (const pageNo of [3, 4]) expect((await sb.signed({ path: `/merchants?pageNo=${pageNo}` })).status).toBe(429);
    const spentSecond = page.locator(`#faults-spent tr[data-fault="${second}"]`);
    await spentSecond.waitFor({ timeout: 10_000 });
    expect(await secondRow.count()).toBe(0);
    expect(await focused(page)).toBe(`Remove fault ${second}`);
    await page.keyboard.press("Enter");
    await expect.poll(() => spentSecond.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.locator("#fault-status").textContent()).toBe(`Remove fault ${second}: done.`);
    // The fault beside it has the focus now; it is removed too.
    expect(await focused(page)).toBe("Remove fault flt_1");
    await page.keyboard.press("Enter");
    await expect.poll(() => spentRow.count(), { timeout: 10_000 }).toBe(0);
    expect(await focused(page)).toBe("faults-h");
    expect((await sb.control("GET", "/faults")).json.data.list).toEqual([]);
    expect(await page.locator("#faults-active-count").textContent()).toBe("No active fault: every request is answered by its operation.");
    await page.screenshot({ path: join(screenshots, "faults-1280.png"), fullPage: true });
  }, 90_000);

  it("shows the control API's refusal with its message: a fault removed elsewhere, and the bound on faults", async () => {
    const page = await dashboard();
    const faultId = (await sb.control("POST", "/faults", { operationId: "queryPayment", kind: "timeout", appKey: DEMO.appKey })).json.data.faultId as string;
    const row = page.locator(`tr[data-fault="${faultId}"]`);
    await row.waitFor({ timeout: 10_000 });
    // Removed by someone else (curl, a test) before this page saw it go.
    await page.getByRole("button", { name: "Pause live updates" }).click();
    await sb.control("DELETE", `/faults/${faultId}`);
    await row.getByRole("button", { name: `Remove fault ${faultId}` }).click();
    await expect.poll(() => page.locator("#fault-status").textContent(), { timeout: 10_000 }).toMatch(
      new RegExp(`^Remove fault ${faultId}: refused \\(HTTP 404\\) faultId: the sandbox holds no fault ${faultId}`),
    );
    expect(await page.locator("#fault-status").getAttribute("class")).toBe("bad");
    expect(await row.count()).toBe(0);
    await page.getByRole("button", { name: "Resume live updates" }).click();

    // The bound: 100 faults of an app, none spent.
    for (let i = 0; i < 100; i++) expect((await sb.control("POST", "/faults", { operationId: "getOrder", kind: "internal-error", appKey: DEMO.appKey })).json.code).toBe(0);
    await page.locator("#fault-operation").selectOption("getOrder");
    await page.locator("#fault-app").selectOption(DEMO.appKey);
    await page.getByRole("button", { name: "Add the fault" }).click();
    await expect.poll(() => page.locator("#fault-status").textContent(), { timeout: 10_000 }).toContain(
      "Add a fault: refused (HTTP 403) appKey demo-app-key: 100 faults are set, the most the sandbox keeps per app",
    );
    // A key-based operation takes no app: the form says so and sends none.
    await page.locator("#fault-operation").selectOption("listAccountMerchants");
    expect(await page.locator("#fault-app").isDisabled()).toBe(true);
    expect(await page.locator("#fault-app-note").textContent()).toContain("meets every caller");
    await page.getByRole("button", { name: "Add the fault" }).click();
    await expect.poll(() => page.locator("#fault-status").textContent(), { timeout: 10_000 }).toMatch(/^Add a fault: flt_\d+ set: the next request of listAccountMerchants meets rate-limited before\.$/);
    // slow needs a delay: the browser asks for it before anything is sent.
    await page.locator("#fault-kind").selectOption("slow");
    expect(await page.locator("#fault-delay").getAttribute("required")).toBe("");
    const before = (await sb.control("GET", "/faults")).json.data.total as number;
    await page.getByRole("button", { name: "Add the fault" }).click();
    expect(await page.evaluate<string>(`document.getElementById("fault-delay").validationMessage`)).not.toBe("");
    expect((await sb.control("GET", "/faults")).json.data.total).toBe(before);
    // The browser reports each refused call as a failed load: these two are this test's own.
    const checked = opened.at(-1)!;
    expect(checked.problems).toEqual([
      "Failed to load resource: the server responded with a status of 404 (Not Found)",
      "Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
    checked.problems.length = 0;
  }, 90_000);

  it("redelivers a callback from its card as a variant, and lists each redelivery apart from the attempts", async () => {
    const { eventId } = await paidEvent();
    const page = await dashboard();
    const card = page.locator(`.delivery[data-event="${eventId}"]`);
    await card.waitFor({ timeout: 10_000 });
    expect(await card.locator(".redeliveries-block").isHidden()).toBe(true);
    const options = await card.locator(".redeliver-variant option").allTextContents();
    expect(options).toEqual([
      "exact (a correct receiver acknowledges it)",
      "tampered-body (a correct receiver refuses it)",
      "wrong-secret (a correct receiver refuses it)",
      "stale-timestamp (a correct receiver refuses it)",
      "reordered-fields (a correct receiver acknowledges it)",
    ]);

    await card.locator(".redeliver-variant").selectOption("tampered-body");
    await card.getByRole("button", { name: "Redeliver" }).click();
    await expect.poll(() => card.locator(".card-status").textContent(), { timeout: 10_000 }).toBe(
      `Redeliver ${eventId} as tampered-body: the receiver answered HTTP 401, as a correct receiver must.`,
    );
    const first = card.locator(".redeliveries li").first();
    await first.waitFor({ timeout: 10_000 });
    expect(await first.locator(".variant").textContent()).toBe("redelivery: tampered-body");
    expect(await first.locator(".summary").textContent()).toMatch(/^sent \S+ · HTTP 401 · \d+ ms$/);
    expect(await first.locator(".verdict").textContent()).toBe("as expected: a correct receiver refuses it (not 2xx)");
    expect(await first.locator(".response").textContent()).toContain("SIGNATURE_MISMATCH");
    await first.getByText("Body sent").click();
    expect(await first.locator(".body-sent").textContent()).not.toBe(await card.locator(".payload-text").textContent());
    // The attempts are untouched: one, scheduled, in their own list.
    expect(await card.locator(".attempts li").count()).toBe(1);
    expect(await card.locator(".attempts .trigger").textContent()).toBe("scheduled");
    expect(await card.locator(".attempts .variant").count()).toBe(0);

    // Late: scheduled on the sandbox clock, sent when the clock passes it.
    await card.locator(".redeliver-variant").selectOption("exact");
    await card.locator(".redeliver-after").fill("120");
    await card.getByRole("button", { name: "Redeliver" }).click();
    await expect.poll(() => card.locator(".card-status").textContent(), { timeout: 10_000 }).toMatch(/as exact: scheduled for \S+ \(sandbox clock\)\.$/);
    const late = card.locator(".redeliveries li").nth(1);
    await expect.poll(() => late.locator(".summary").textContent(), { timeout: 10_000 }).toMatch(/^scheduled for /);
    expect(await late.locator(".verdict").textContent()).toBe("a correct receiver acknowledges it (2xx)");
    await page.locator("#advance-seconds").fill("120");
    await page.getByRole("button", { name: "Advance the clock" }).click();
    await expect.poll(() => late.locator(".summary").textContent(), { timeout: 10_000 }).toMatch(/^sent \S+ · HTTP 200 · \d+ ms$/);
    expect(await late.locator(".verdict").textContent()).toBe("as expected: a correct receiver acknowledges it (2xx)");
    expect(await late.locator(".sent-body").isHidden()).toBe(true); // the event's own bytes
    expect(await card.locator(".attempts li").count()).toBe(1);
    await page.screenshot({ path: join(screenshots, "redeliveries-1280.png"), fullPage: true });
  }, 90_000);

  it("has no axe violation at 1280 and 390 px with faults, a marked request and redeliveries shown, and nothing scrolls sideways", async () => {
    const { eventId } = await paidEvent();
    await sb.control("POST", `/callbacks/${eventId}/redeliver`, { variant: "wrong-secret" });
    await sb.control("POST", `/callbacks/${eventId}/redeliver`, { variant: "reordered-fields", afterSeconds: 60 });
    await sb.control("POST", "/faults", { operationId: "queryPayment", kind: "unavailable", retryAfterSeconds: 3, times: 2, appKey: DEMO.appKey });
    await sb.control("POST", "/faults", { operationId: "listMerchants", kind: "internal-error" });
    expect((await sb.signed({ path: "/merchants?pageNo=1" })).status).toBe(500);
    for (const width of [1280, 390]) {
      const page = await dashboard({ width, height: 844 });
      await page.locator(".redeliveries li").nth(1).waitFor({ timeout: 10_000 });
      await page.locator("#faults-spent tr").first().waitFor({ timeout: 10_000 });
      await page.locator("#fault-kind").selectOption("rate-limited"); // the Retry-After field shown
      const marked = page.locator("#requests tbody tr.faulted").first();
      await marked.getByRole("button").click({ timeout: 10_000 });
      await page.locator("#detail .fault-fact").waitFor();
      expect(await axeViolations(page), `${width} px`).toEqual([]);
      expect(await sidewaysOverflow(page), `${width} px`).toBe(0);
      await page.screenshot({ path: join(screenshots, `scenarios-${width}.png`), fullPage: true });
    }
    console.log(`dashboard scenario screenshots: ${screenshots}`);
  }, 90_000);
});
