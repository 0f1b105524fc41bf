// Markup where the dashboard shows scenarios, in a real browser (Debian's Chromium through
// playwright-core): an app whose key and name are HTML (the fixtures allow any text), a fault
// scoped to it, the request that fault answered, and a receiver whose answers are a script and
// an image with an onerror handler, shown under a callback's attempts and its redeliveries. Every
// one of them must appear as the text it is, and none may become an element or run.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonLossless, stringifyJson } from "../../src/json/index.js";
import { defaultFixturesText } from "../../src/sandbox/index.js";
import { openCheckedPage } from "../support/browser.js";
import { browserSuite, hasChromium, launchChromium } from "../support/chromium.js";
import { startSandbox, type TestSandbox } from "../support/sandbox.js";

const HOSTILE_APP = { appKey: `<img src=x onerror="window.__xss='appKey'">`, appSecret: "hostile-app-secret" };
const HOSTILE_NAME = `<script>window.__xss="name"</script>`;
const HOSTILE_ANSWER = `<script>window.__xss="receiver"</script><img src=x onerror="window.__xss='answer'">`;

describe.skipIf(!hasChromium)(browserSuite("the dashboard shows hostile app keys and receiver answers as text"), () => {
  let sb: TestSandbox;
  let receiver: Server;
  let browser: Browser;

  beforeAll(async () => {
    // Read and written losslessly: the default fixtures hold ids above 2^53.
    const fixtures = parseJsonLossless(defaultFixturesText()) as { apps: object[] };
    fixtures.apps.push({ appKey: HOSTILE_APP.appKey, name: HOSTILE_NAME, appSecrets: [HOSTILE_APP.appSecret], merchantIds: [10001], permissions: [] });
    sb = await startSandbox({ fixtures: stringifyJson(fixtures), allowInsecureNotify: true, callbackSchedule: [3_600_000], callbackTimeoutMs: 2000 });
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(401, { "Content-Type": "text/html" }).end(HOSTILE_ANSWER));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => {
      receiver?.close(() => resolve());
      receiver?.closeAllConnections();
    });
    await sb?.close();
  });

  it("in the faults panel, the form's apps, the marked request and its detail, and a callback's attempts and redeliveries", async () => {
    const notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    const fault = await sb.control("POST", "/faults", { operationId: "createCashierSession", kind: "internal-error", when: "after", appKey: HOSTILE_APP.appKey });
    expect(fault.json.code).toBe(0);
    const session = { path: "/payment/cashier/create", app: HOSTILE_APP, body: { merchantId: 10001, outTradeNo: "HOSTILE-1", totalAmount: 4250, subject: "<b>tea</b>", notifyUrl } };
    expect((await sb.signed(session)).status).toBe(500);
    // The work was done: the retry answers the same trade, whose callback goes to the hostile receiver.
    const { tradeNo } = (await sb.signed(session)).json.data;
    const eventId = (await sb.control("POST", `/trades/${tradeNo}/pay`)).json.data.eventId as string;
    await expect.poll(async () => (await sb.control("GET", `/callbacks?eventId=${eventId}`)).json.data.list[0].attempts.length, { timeout: 10_000 }).toBe(1);
    const redelivered = await sb.control("POST", `/callbacks/${eventId}/redeliver`, { variant: "tampered-body" });
    expect(redelivered.json.data.redeliveries[0]).toMatchObject({ httpStatus: 401, responseBody: HOSTILE_ANSWER, asExpected: true });

    const { page, context, outside, problems } = await openCheckedPage(browser, sb.url);
    try {
      await page.goto(`${sb.url}/sandbox/ui`);
      const spent = page.locator(`#faults-spent tr[data-fault="${fault.json.data.faultId}"]`);
      await spent.waitFor({ timeout: 10_000 });
      expect(await spent.locator('td[data-label="App"]').textContent()).toBe(HOSTILE_APP.appKey);
      await spent.getByText("Latest 1").click();
      expect(await spent.locator(".hits li").textContent()).toContain(` · ${HOSTILE_APP.appKey} · carried out`);
      expect(await page.locator("#fault-app option").allTextContents()).toContain(`${HOSTILE_APP.appKey} (${HOSTILE_NAME})`);
      expect(await page.locator("#filter-app option").allTextContents()).toContain(HOSTILE_APP.appKey);

      const row = page.locator("#requests tbody tr.faulted").first();
      expect(await row.locator(".fault-mark").textContent()).toBe(`Fault ${fault.json.data.faultId}: internal-error after · operation carried out`);
      await row.getByRole("button").click();
      await expect.poll(() => page.locator("#detail dd").nth(4).textContent(), { timeout: 10_000 }).toBe(`${HOSTILE_APP.appKey} (signature verified)`);

      const card = page.locator(`.delivery[data-event="${eventId}"]`);
      await card.locator(".redeliveries li").first().waitFor({ timeout: 10_000 });
      expect(await card.locator(".attempts .response").textContent()).toBe(HOSTILE_ANSWER);
      expect(await card.locator(".redeliveries .response").textContent()).toBe(HOSTILE_ANSWER);

      // Nothing became an element, nothing ran.
      expect(await page.evaluate<unknown>("window.__xss")).toBeUndefined();
      expect(await page.evaluate<number>("document.querySelectorAll('img, b').length")).toBe(0);
      expect(await page.evaluate<string[]>("Array.from(document.scripts, (s) => s.getAttribute('src'))")).toEqual(["/sandbox/ui/dashboard.js"]);
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
