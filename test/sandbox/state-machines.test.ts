// The order and trade state machines (DESIGN items 2, 3, 7): every allowed move, every refused
// move, the status history, expiry by the sandbox clock, and idempotency under concurrency.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Answer, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const NOTIFY = "https://127.0.0.1:9/cb";

async function pay(orderId: bigint): Promise<string> {
  const answer = await sb.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } });
  expect(answer.json.code, answer.text).toBe(0);
  const { tradeNo } = answer.json.data as { tradeNo: string };
  expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(0);
  return tradeNo;
}

const operations = {
  pay: (id: bigint) => sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } }),
  cancel: (id: bigint) => sb.signed({ path: `/orders/${id}/cancel`, body: { merchantId: 10001, reason: "test" } }),
  refund: (id: bigint) => sb.signed({ path: `/orders/${id}/refund?merchantId=10001`, body: { reason: "test" } }),
  writeOff: (id: bigint) => sb.signed({ method: "POST", path: `/orders/${id}/write-off?merchantId=10001` }),
  startService: (id: bigint) => sb.control("POST", `/orders/${id}/start-service`),
};
type Operation = keyof typeof operations;

/** A voucher (service-type) order brought to a status by allowed moves only. */
async function voucherOrderIn(status: number): Promise<bigint> {
  const id = await sb.createOrder({ orderType: 3 });
  if (status === 4) await operations.cancel(id);
  if ([1, 2, 3, 5].includes(status)) await pay(id);
  if (status === 2) await operations.startService(id);
  if (status === 3) await operations.writeOff(id);
  if (status === 5) await operations.refund(id);
  return id;
}

async function orderStatus(id: bigint): Promise<number> {
  return (await sb.signed({ path: `/orders/${id}?merchantId=10001` })).json.data.status;
}

async function history(id: bigint): Promise<{ fromStatus: number | null; toStatus: number; changeTime: string; reason: string }[]> {
  return (await sb.signed({ path: `/orders/${id}/status-history?merchantId=10001` })).json.data;
}

// [operation, from status] → the status after, or the refusal code.
const ALLOWED: Record<Operation, Record<number, number>> = {
  pay: { 0: 1 }, // moves to 1 once the trade is paid; payOrder itself only opens the trade
  cancel: { 0: 4 },
  refund: { 1: 5 },
  writeOff: { 1: 3, 2: 3 },
  startService: { 1: 2 },
};
const REFUSAL: Record<Operation, number> = { pay: 300002, cancel: 300003, refund: 300004, writeOff: 300006, startService: 300008 };

describe("order state machine", () => {
  const table = (Object.keys(operations) as Operation[]).flatMap((operation) => [0, 1, 2, 3, 4, 5].map((from) => [operation, from] as const));

  it.each(table)("%s from status %i", async (operation, from) => {
    const id = await voucherOrderIn(from);
    expect(await orderStatus(id)).toBe(from);
    const before = await history(id);
    const answer: Answer = await operations[operation](id);
    const to = ALLOWED[operation][from];
    if (to === undefined) {
      expect(answer.json.code, answer.text).toBe(REFUSAL[operation]);
      expect(answer.status).toBe(409);
      expect(await orderStatus(id)).toBe(from);
      expect(await history(id)).toEqual(before);
      return;
    }
    expect(answer.json.code, answer.text).toBe(0);
    if (operation === "pay") {
      expect(await orderStatus(id)).toBe(0);
      await sb.control("POST", `/trades/${answer.json.data.tradeNo}/pay`);
    }
    expect(await orderStatus(id)).toBe(to);
    const after = await history(id);
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ fromStatus: from, toStatus: to });
  });

  it("write-off and service start apply to service-type orders only (300005)", async () => {
    const id = await sb.createOrder({ orderType: 1 });
    await pay(id);
    expect((await operations.writeOff(id)).json.code).toBe(300005);
    expect((await operations.startService(id)).json.code).toBe(300005);
  });

  it("records every move with its time and reason", async () => {
    const id = await sb.createOrder({ orderType: 3 });
    sb.sandbox.clock.advance(60_000);
    const tradeNo = await pay(id);
    sb.sandbox.clock.advance(60_000);
    await operations.startService(id);
    sb.sandbox.clock.advance(60_000);
    await sb.signed({ method: "POST", path: `/orders/${id}/write-off?merchantId=10001`, body: { storeId: 20001, remark: "front desk" } });
    const moves = await history(id);
    expect(moves.map(({ fromStatus, toStatus }) => [fromStatus, toStatus])).toEqual([[null, 0], [0, 1], [1, 2], [2, 3]]);
    expect(moves.map((move) => move.reason)).toEqual(["created", `payment succeeded (trade ${tradeNo})`, "service started", "written off at store 20001: front desk"]);
    const times = moves.map((move) => Date.parse(move.changeTime));
    expect(times.slice(1).map((time, i) => time - times[i]!)).toEqual([60_000, 60_000, 60_000]);
    const order = (await sb.signed({ path: `/orders/${id}?merchantId=10001` })).json.data;
    expect(order.payTime).toBe(moves[1]!.changeTime);
    expect(order.completeTime).toBe(moves[3]!.changeTime);
  });

  it("finds orders per merchant: another merchant's order is 300001", async () => {
    const id = await sb.createOrder({ merchantId: 10002n });
    const answer = await sb.signed({ path: `/orders/${id}?merchantId=10001` });
    expect(answer.json.code).toBe(300001);
    expect(answer.json.msg).not.toContain("10002");
  });
});

describe("payOrder's trade", () => {
  it("answers the same open trade when repeated, and a new one after it closed", async () => {
    const id = await sb.createOrder();
    const first = (await operations.pay(id)).json.data;
    const again = (await operations.pay(id)).json.data;
    expect(again.tradeNo).toBe(first.tradeNo);
    await sb.control("POST", `/trades/${first.tradeNo}/close`);
    expect(first.outTradeNo).toBe(`ORDER-${id}`);
    const fresh = (await operations.pay(id)).json.data;
    expect(fresh.tradeNo).not.toBe(first.tradeNo);
    // Every trade has its own outTradeNo: outTradeNo is unique per app.
    expect(fresh.outTradeNo).toBe(`ORDER-${id}-2`);
    await sb.control("POST", `/trades/${fresh.tradeNo}/close`);
    expect((await operations.pay(id)).json.data.outTradeNo).toBe(`ORDER-${id}-3`);
  });

  it("reserves its outTradeNo: createCashierSession with it is 400002, whatever the amount, and one order is paid once", async () => {
    const id = await sb.createOrder();
    const { tradeNo, outTradeNo } = (await operations.pay(id)).json.data;
    for (const totalAmount of [1, 3600]) {
      const clash = await sb.signed({
        path: "/payment/cashier/create",
        body: { merchantId: 10001, outTradeNo, totalAmount, subject: `Order ${id}`, notifyUrl: "https://127.0.0.1:9/cb" },
      });
      expect(clash.json.code, clash.text).toBe(400002);
      expect(clash.json.msg).toContain(String(id));
    }
    expect((await operations.pay(id)).json.data.tradeNo).toBe(tradeNo);
    const waiting = (await sb.sandbox.state.trades()).filter((trade) => trade.outTradeNo.startsWith(`ORDER-${id}`));
    expect(waiting.map((trade) => trade.tradeNo)).toEqual([tradeNo]);
  });

  it("is refused with 400002 when a cashier session took the order's outTradeNo first, and opens no trade", async () => {
    const id = await sb.createOrder();
    await sb.createTrade({ outTradeNo: `ORDER-${id}` });
    const refused = await operations.pay(id);
    expect(refused.json.code, refused.text).toBe(400002);
    expect(refused.json.msg).toContain(`ORDER-${id}`);
    expect((await sb.sandbox.state.order(id))!.tradeNos).toEqual([]);
  });

  it("is closed when the order is cancelled", async () => {
    const id = await sb.createOrder();
    const { tradeNo } = (await operations.pay(id)).json.data;
    await operations.cancel(id);
    const trade = await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` });
    expect(trade.json.data.tradeStatus).toBe("CLOSED");
    expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(400003);
  });
});

describe("trade state machine", () => {
  const status = async (tradeNo: string) => (await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).json.data.tradeStatus;

  it("WAIT_BUYER_PAY → SUCCESS → REFUND, and no other move from there", async () => {
    const id = await sb.createOrder();
    const tradeNo = await pay(id);
    expect(await status(tradeNo)).toBe("SUCCESS");
    expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(400003);
    expect((await sb.control("POST", `/trades/${tradeNo}/close`)).json.code).toBe(400003);
    await operations.refund(id);
    expect(await status(tradeNo)).toBe("REFUND");
    expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(400003);
    expect((await sb.control("POST", `/trades/${tradeNo}/close`)).json.code).toBe(400003);
  });

  it("WAIT_BUYER_PAY → CLOSED by an active close, and nothing after", async () => {
    const { tradeNo } = await sb.createTrade();
    const closed = await sb.control("POST", `/trades/${tradeNo}/close`);
    expect(closed.json.data).toMatchObject({ tradeStatus: "CLOSED", closeReason: "closed by the control API", payTime: null });
    expect((await sb.control("POST", `/trades/${tradeNo}/close`)).json.code).toBe(400003);
    expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(400003);
  });

  it("closes after expireMinutes on the sandbox clock, counted by the clock advance", async () => {
    const { tradeNo } = await sb.createTrade({ expireMinutes: 1 });
    let advanced = await sb.control("POST", "/clock/advance", { seconds: 59 });
    expect(advanced.json.data.expiredTrades).toBe(0);
    expect(await status(tradeNo)).toBe("WAIT_BUYER_PAY");
    advanced = await sb.control("POST", "/clock/advance", { seconds: 1 });
    expect(advanced.json.data.expiredTrades).toBe(1);
    expect(await status(tradeNo)).toBe("CLOSED");
    const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
    expect(paid.json.code).toBe(400003);
    expect(paid.json.msg).toMatch(/expired after 1 minutes/);
  });

  it("is evaluated lazily on access when time passes without the control API", async () => {
    const { tradeNo } = await sb.createTrade();
    sb.baseClock.set(sb.baseClock.now() + 30 * 60_000);
    try {
      expect(await status(tradeNo)).toBe("CLOSED");
    } finally {
      sb.baseClock.set(sb.baseClock.now() - 30 * 60_000);
    }
  });

  it("uses expireMinutes' default of 30 from the spec", async () => {
    const { tradeNo } = await sb.createTrade();
    sb.sandbox.clock.advance(30 * 60_000 - 1000);
    expect(await status(tradeNo)).toBe("WAIT_BUYER_PAY");
    sb.sandbox.clock.advance(1000);
    expect(await status(tradeNo)).toBe("CLOSED");
  });
});

describe("idempotency on outTradeNo", () => {
  const body = { merchantId: 10001, outTradeNo: "IDEMP-1", totalAmount: 100, subject: "Idempotent", notifyUrl: NOTIFY };

  it("answers the original trade for the same parameters and 400002 for others", async () => {
    const first = (await sb.signed({ path: "/payment/cashier/create", body })).json.data;
    const again = (await sb.signed({ path: "/payment/cashier/create", body: { ...body, expireMinutes: 30 } })).json.data;
    expect(again).toEqual(first);
    const other = await sb.signed({ path: "/payment/cashier/create", body: { ...body, subject: "Changed" } });
    expect(other.json.code).toBe(400002);
    expect(other.json.msg).toContain("subject");
  });

  it("holds under 50 concurrent requests: one trade, one tradeNo in every answer", async () => {
    const concurrent = { ...body, outTradeNo: "CONCURRENT-50" };
    const answers = await Promise.all(Array.from({ length: 50 }, () => sb.signed({ path: "/payment/cashier/create", body: concurrent })));
    expect(answers.map((a) => a.json.code)).toEqual(Array(50).fill(0));
    const tradeNos = new Set(answers.map((a) => a.json.data.tradeNo));
    expect(tradeNos.size).toBe(1);
    expect((await sb.sandbox.state.trades()).filter((t) => t.outTradeNo === "CONCURRENT-50")).toHaveLength(1);
  });

  it("is per app: another app may use the same outTradeNo", async () => {
    const demo = (await sb.signed({ path: "/payment/cashier/create", body: { ...body, outTradeNo: "PER-APP" } })).json.data;
    const basic = (await sb.signed({ path: "/payment/cashier/create", body: { ...body, outTradeNo: "PER-APP" }, app: { appKey: "basic-app-key", appSecret: "basic-app-secret" } })).json.data;
    expect(basic.tradeNo).not.toBe(demo.tradeNo);
  });
});
