// Payment outcomes (docs/scenarios.md): payTrade { outcome: "unknown" } and the test amounts
// make a trade read UNKNOWN until the sandbox clock passes unknownForSeconds, then SUCCESS with
// its callback or CLOSED; the cashier page offers the same to a person. The clock is moved with
// the control API (no waiting), except in the one test that shows the callback goes out on its
// own when nobody looks (a real clock and a one-second result).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OUTCOME_AMOUNTS } from "../../src/sandbox/scenarios/outcomes.js";
import { eventually, startReceiver, startSandbox, successSchemaErrors, type Answer, type Receiver, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  expect(sb.logs.errors).toEqual([]);
  await sb.close();
});
beforeEach(async () => {
  // A reset keeps the clock's offset; the times below count from T0.
  await sb.control("POST", "/clock/reset");
  await sb.control("POST", "/reset");
});

async function pay(tradeNo: string, body?: unknown): Promise<Answer> {
  const answer = await sb.control("POST", `/trades/${tradeNo}/pay`, body);
  if (answer.json?.code === 0) expect(successSchemaErrors("sandbox-control", "payTrade", answer.json)).toEqual([]);
  return answer;
}

async function query(tradeNo: string): Promise<{ tradeStatus: string; payTime: string | null }> {
  const answer = await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` });
  expect(answer.json.code, answer.text).toBe(0);
  expect(successSchemaErrors("signed", "queryPayment", answer.json)).toEqual([]);
  return answer.json.data;
}

const advance = (seconds: number) => sb.control("POST", "/clock/advance", { seconds });
const deliveries = async (tradeNo: string) => (await sb.control("GET", `/callbacks?tradeNo=${tradeNo}`)).json.data.list;

describe("payTrade { outcome: unknown }", () => {
  it("reads UNKNOWN until the sandbox clock passes unknownForSeconds (default 60), then SUCCESS with its callback", async () => {
    const { tradeNo } = await sb.createTrade();
    const paid = await pay(tradeNo, { outcome: "unknown" });
    expect(paid.json.data).toMatchObject({ eventId: null, trade: { tradeStatus: "UNKNOWN", payTime: null }, outcome: { kind: "unknown", byAmount: false, then: "SUCCESS", settlesAt: "2026-11-22T10:16:30+08:00" } });
    expect(await query(tradeNo)).toMatchObject({ tradeStatus: "UNKNOWN", payTime: null });
    expect(await deliveries(tradeNo)).toEqual([]);
    await advance(59);
    expect((await query(tradeNo)).tradeStatus).toBe("UNKNOWN");
    await advance(1);
    // The result became known at its time, not when it was read.
    expect(await query(tradeNo)).toEqual(expect.objectContaining({ tradeStatus: "SUCCESS", payTime: "2026-11-22T10:16:30+08:00" }));
    const [event] = await deliveries(tradeNo);
    expect(event.type).toBe("payment.succeeded");
    expect(JSON.parse(event.body).data).toMatchObject({ tradeNo, tradeStatus: "SUCCESS", payTime: "2026-11-22T10:16:30+08:00" });
  });

  it("with then CLOSED: UNKNOWN, then CLOSED; no callback, and the order stays pending", async () => {
    const orderId = await sb.createOrder();
    const payment = await sb.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } });
    const { tradeNo } = payment.json.data;
    await pay(tradeNo, { outcome: "unknown", unknownForSeconds: 300, then: "CLOSED" });
    // payOrder again while the result is unknown answers the same trade (a second one could be paid twice).
    const again = await sb.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } });
    expect(again.json.data.tradeNo).toBe(tradeNo);
    const advanced = await advance(300);
    expect(advanced.json.data.expiredTrades).toBe(0);
    expect((await query(tradeNo)).tradeStatus).toBe("CLOSED");
    expect((await sb.sandbox.state.trade(tradeNo))?.closeReason).toBe("the payment's result was UNKNOWN, then it failed");
    expect(await deliveries(tradeNo)).toEqual([]);
    expect((await sb.signed({ path: `/orders/${orderId}?merchantId=10001` })).json.data.status).toBe(0);
  });

  it("an UNKNOWN trade is settled by hand: payTrade makes it SUCCESS now, closeTrade CLOSED; a second unknown is 400003", async () => {
    const { tradeNo } = await sb.createTrade();
    await pay(tradeNo, { outcome: "unknown" });
    const twice = await pay(tradeNo, { outcome: "unknown" });
    expect(twice.json.code).toBe(400003);
    expect(twice.json.msg).toMatch(/is already UNKNOWN \(its result becomes known at 2026-11-22T10:16:30\+08:00\); pay it with outcome success, or close it/);
    const settled = await pay(tradeNo);
    expect(settled.json.data).toMatchObject({ trade: { tradeStatus: "SUCCESS" }, outcome: { kind: "success" } });
    expect(settled.json.data.eventId).toMatch(/^evt_/);

    const other = (await sb.createTrade()).tradeNo;
    await pay(other, { outcome: "unknown" });
    const closed = await sb.control("POST", `/trades/${other}/close`);
    expect(closed.json.data.tradeStatus).toBe("CLOSED");
  });

  it.each([
    ["then without outcome", { then: "CLOSED" }],
    ["unknownForSeconds with outcome success", { outcome: "success", unknownForSeconds: 5 }],
    ["unknownForSeconds 0", { outcome: "unknown", unknownForSeconds: 0 }],
    ["an outcome the sandbox does not have", { outcome: "declined" }],
  ])("refuses %s with 100009", async (_name, body) => {
    const { tradeNo } = await sb.createTrade();
    const answer = await pay(tradeNo, body);
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect((await sb.sandbox.state.trade(tradeNo))?.status).toBe("WAIT_BUYER_PAY");
  });
});

describe("outcomes by amount", () => {
  const amount = (kind: string, then?: string) => OUTCOME_AMOUNTS.find((entry) => entry.outcome.kind === kind && (then === undefined || ("forSeconds" in entry.outcome && entry.outcome.forSeconds !== null && entry.outcome.then === then)))!.totalAmount;

  it("66666601: a slow confirmation, UNKNOWN for 60 s then SUCCESS, chosen by the amount", async () => {
    const { tradeNo } = await sb.createTrade({ totalAmount: amount("unknown", "SUCCESS") });
    const paid = await pay(tradeNo);
    expect(paid.json.data.outcome).toEqual({ kind: "unknown", byAmount: true, settlesAt: "2026-11-22T10:16:30+08:00", then: "SUCCESS" });
    await advance(60);
    expect((await query(tradeNo)).tradeStatus).toBe("SUCCESS");
  });

  it("66666602: UNKNOWN for 60 s, then CLOSED", async () => {
    const { tradeNo } = await sb.createTrade({ totalAmount: amount("unknown", "CLOSED") });
    await pay(tradeNo);
    await advance(61);
    expect((await query(tradeNo)).tradeStatus).toBe("CLOSED");
  });

  it("66666603: ends in UNKNOWN, whatever time passes, until settled by hand", async () => {
    const { tradeNo } = await sb.createTrade({ totalAmount: 66_666_603 });
    const paid = await pay(tradeNo);
    expect(paid.json.data.outcome).toEqual({ kind: "unknown", byAmount: true, settlesAt: null, then: "SUCCESS" });
    await advance(86_400 * 7);
    expect((await query(tradeNo)).tradeStatus).toBe("UNKNOWN");
  });

  it("66666604: the buyer closes the cashier instead of paying", async () => {
    const { tradeNo } = await sb.createTrade({ totalAmount: amount("closed-by-buyer") });
    const paid = await pay(tradeNo);
    expect(paid.json.data).toMatchObject({ eventId: null, trade: { tradeStatus: "CLOSED", closeReason: "closed by the buyer instead of paying (sandbox test amount)" }, outcome: { kind: "closed-by-buyer", byAmount: true } });
  });

  it("an explicit outcome wins over the amount, and ordinary amounts are simply paid", async () => {
    const { tradeNo } = await sb.createTrade({ totalAmount: 66_666_601 });
    expect((await pay(tradeNo, { outcome: "success" })).json.data.outcome).toMatchObject({ kind: "success", byAmount: false });
    for (const totalAmount of [1, 100, 4250, 66_666_600, 66_666_605, 6_666_660_1]) {
      const trade = (await sb.createTrade({ totalAmount })).tradeNo;
      expect((await pay(trade)).json.data.outcome, String(totalAmount)).toMatchObject({ kind: totalAmount === 66_666_601 ? "unknown" : "success" });
    }
  });
});

describe("the cashier page", () => {
  async function page(cashierUrl: string, suffix = ""): Promise<{ status: number; html: string; location: string | null }> {
    const url = new URL(cashierUrl);
    const response = await fetch(`${sb.url}${url.pathname}${suffix}${url.search}`, { method: suffix ? "POST" : "GET", redirect: "manual" });
    return { status: response.status, html: await response.text(), location: response.headers.get("location") };
  }

  it("offers the test outcomes beside Pay, and pays with the one pressed", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade();
    const shown = await page(cashierUrl);
    expect(shown.html).toContain("Pay, result unknown for 60 s, then paid");
    expect(shown.html).toContain("Pay, result unknown for 60 s, then failed");
    const action = /action="([^"]*outcome=unknown&amp;then=CLOSED)"/.exec(shown.html)![1]!.replace(/&amp;/g, "&");
    const posted = await fetch(`${sb.url}${action}`, { method: "POST", redirect: "manual" });
    expect(posted.status).toBe(303);
    const after = await fetch(`${sb.url}${posted.headers.get("location")}`);
    const html = await after.text();
    expect(html).toContain("Payment submitted; its result is not known yet.");
    expect(html).toMatch(/<span id="status">UNKNOWN<\/span> \(result unknown\)/);
    expect(html).toMatch(/the sandbox settles it at <time datetime="2026-11-22T10:16:30\+08:00">2026-11-22 10:16:30\+08:00<\/time> \(closed\)/);
    expect((await sb.sandbox.state.trade(tradeNo))?.unknownThen).toBe("CLOSED");
  });

  it("says when the amount is a test amount, and Pay then ends as the table says", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ totalAmount: 66_666_604 });
    expect((await page(cashierUrl)).html).toContain("A sandbox test amount: paying it ends in the buyer closes the cashier instead of paying: CLOSED, no callback.");
    const paid = await page(cashierUrl, "/pay");
    expect(paid.status).toBe(303);
    expect(paid.location).toMatch(/done=closed$/);
    expect((await sb.sandbox.state.trade(tradeNo))?.status).toBe("CLOSED");
  });

  it("refuses an outcome it does not offer with a 400 page", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade();
    const url = new URL(cashierUrl);
    const answer = await fetch(`${sb.url}${url.pathname}/pay${url.search}&outcome=unknown&then=REFUND`, { method: "POST", redirect: "manual" });
    expect(answer.status).toBe(400);
    expect((await sb.sandbox.state.trade(tradeNo))?.status).toBe("WAIT_BUYER_PAY");
  });
});

describe("nobody looking", () => {
  let live: TestSandbox;
  let receiver: Receiver;
  beforeAll(async () => {
    live = await startSandbox({ clock: { now: () => Date.now() }, allowInsecureNotify: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await live.close();
  });

  it("the callback goes out when the result becomes known, without a query or a clock move", async () => {
    const { tradeNo } = await live.createTrade({ notifyUrl: receiver.url });
    const paid = await live.control("POST", `/trades/${tradeNo}/pay`, { outcome: "unknown", unknownForSeconds: 1 });
    expect(paid.json.data.trade.tradeStatus).toBe("UNKNOWN");
    const [callback] = await receiver.waitFor(1, 5000);
    expect(JSON.parse(callback!.body).data).toMatchObject({ tradeNo, tradeStatus: "SUCCESS" });
    expect((await live.sandbox.state.trade(tradeNo))?.status).toBe("SUCCESS");
    await eventually(async () => (await live.control("GET", `/callbacks?tradeNo=${tradeNo}&status=delivered`)).json.data.total === 1);
    expect(live.logs.errors).toEqual([]);
  });
});
