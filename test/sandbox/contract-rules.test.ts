// Order rules of the contract the sandbox enforces: a 0-amount order cannot be paid (300009),
// and outRefundNo is the refund's idempotency key per app (same parameters → the original
// refund, different ones → 400004).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BASIC, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const NOTIFY = "https://127.0.0.1:9/cb";

async function paidOrder(): Promise<bigint> {
  const id = await sb.createOrder();
  const pay = await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } });
  expect(pay.json.code, pay.text).toBe(0);
  expect((await sb.control("POST", `/trades/${pay.json.data.tradeNo}/pay`)).json.code).toBe(0);
  return id;
}

const refund = (id: bigint, body: Record<string, unknown>, app?: { appKey: string; appSecret: string }) =>
  sb.signed({ path: `/orders/${id}/refund?merchantId=10001`, body, ...(app && { app }) });

describe("payOrder of a 0-amount order", () => {
  it("is refused with 300009 and leaves the order pending, without a trade", async () => {
    const id = await sb.createOrder({ price: 0, quantity: 3 });
    const order = await sb.signed({ path: `/orders/${id}?merchantId=10001` });
    expect(order.json.data.totalAmount).toBe(0);
    const tradesBefore = (await sb.sandbox.state.trades()).length;

    const answer = await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } });
    expect(answer.status).toBe(409);
    expect(answer.json).toMatchObject({ code: 300009, data: null });
    expect(answer.json.msg).toMatch(/totalAmount 0/);

    expect((await sb.sandbox.state.trades()).length).toBe(tradesBefore);
    const history = await sb.signed({ path: `/orders/${id}/status-history?merchantId=10001` });
    expect(history.json.data.map((change: { toStatus: number }) => change.toStatus)).toEqual([0]);
    // It can still be cancelled.
    const cancel = await sb.signed({ path: `/orders/${id}/cancel`, body: { merchantId: 10001 } });
    expect(cancel.json.code, cancel.text).toBe(0);
  });

  it("a 1-fen order is payable", async () => {
    const id = await sb.createOrder({ price: 1, quantity: 1 });
    const answer = await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } });
    expect(answer.json.code, answer.text).toBe(0);
  });

  it("the order's status is judged first: a cancelled 0-amount order is 300002", async () => {
    const id = await sb.createOrder({ price: 0 });
    await sb.signed({ path: `/orders/${id}/cancel`, body: { merchantId: 10001 } });
    const answer = await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: NOTIFY } });
    expect(answer.json.code).toBe(300002);
  });
});

describe("outRefundNo idempotency", () => {
  it("the same outRefundNo with the same parameters answers the original refund and changes nothing", async () => {
    const id = await paidOrder();
    const first = await refund(id, { reason: "out of stock", outRefundNo: "R-idem-1" });
    expect(first.json.code, first.text).toBe(0);
    const refundsAfterFirst = (await sb.sandbox.state.refunds()).length;
    const historyAfterFirst = (await sb.signed({ path: `/orders/${id}/status-history?merchantId=10001` })).json.data;

    sb.baseClock.set(sb.baseClock.now() + 60_000);
    const again = await refund(id, { reason: "out of stock", outRefundNo: "R-idem-1" });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((await sb.sandbox.state.refunds()).length).toBe(refundsAfterFirst);
    expect((await sb.signed({ path: `/orders/${id}/status-history?merchantId=10001` })).json.data).toEqual(historyAfterFirst);
  });

  it.each([
    ["reason", (id: bigint, _other: bigint, key: string) => ({ id, body: { reason: "another reason", outRefundNo: key } })],
    ["orderId", (_id: bigint, other: bigint, key: string) => ({ id: other, body: { reason: "out of stock", outRefundNo: key } })],
  ])("the same outRefundNo with a different %s is 400004 naming it, and nothing changes", async (field, vary) => {
    const id = await paidOrder();
    const other = await paidOrder();
    const key = `R-idem-2-${field}`;
    const first = await refund(id, { reason: "out of stock", outRefundNo: key });
    expect(first.json.code, first.text).toBe(0);
    const { id: target, body } = vary(id, other, key);
    const conflict = await refund(target, body);
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ code: 400004, data: null });
    expect(conflict.json.msg).toContain(field);
    expect(conflict.json.msg).toContain(key);
    // The second order was never refunded: it stays paid.
    expect((await sb.signed({ path: `/orders/${other}?merchantId=10001` })).json.data.status).toBe(1);
  });

  it("the key is scoped to the app: another app may use the same outRefundNo", async () => {
    const id = await paidOrder();
    expect((await refund(id, { reason: "x", outRefundNo: "R-idem-3" })).json.code).toBe(0);
    // BASIC's own order, refunded with the same outRefundNo: a new refund, not a conflict.
    const basicUser = await sb.signed({ path: "/customers/sync", body: { openUserId: "basic-refund-user" }, app: BASIC });
    if (basicUser.json.code !== 0) return expect.fail(basicUser.text);
    const created = await sb.signed({
      path: "/orders",
      app: BASIC,
      body: { merchantId: 10001, userId: basicUser.json.data.appUserId, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] },
    });
    if (created.json.code !== 0) return expect.fail(created.text);
    const basicOrder = BigInt(created.json.data);
    const pay = await sb.signed({ path: `/orders/${basicOrder}/pay`, app: BASIC, body: { merchantId: 10001, notifyUrl: NOTIFY } });
    await sb.control("POST", `/trades/${pay.json.data.tradeNo}/pay`);
    const basicRefund = await refund(basicOrder, { reason: "y", outRefundNo: "R-idem-3" }, BASIC);
    expect(basicRefund.json.code, basicRefund.text).toBe(0);
    expect(BigInt(basicRefund.json.data.orderId)).toBe(basicOrder);
  });

  it("concurrent refunds with one outRefundNo make one refund", async () => {
    const id = await paidOrder();
    const before = (await sb.sandbox.state.refunds()).length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(id, { reason: "burst", outRefundNo: "R-idem-4" })));
    for (const answer of answers) expect(answer.json.code, answer.text).toBe(0);
    expect(new Set(answers.map((answer) => answer.json.data.refundNo)).size).toBe(1);
    expect((await sb.sandbox.state.refunds()).length).toBe(before + 1);
  });

  it("without an outRefundNo a repeat finds the order refunded (300004)", async () => {
    const id = await paidOrder();
    expect((await refund(id, { reason: "x" })).json.code).toBe(0);
    expect((await refund(id, { reason: "x" })).json.code).toBe(300004);
  });

});

describe("createOrder's voucherIds", () => {
  const order = (voucherIds: string) =>
    sb.signed({
      path: "/orders",
      body: { merchantId: 10001, userId: 880000000001, orderType: 3, voucherIds, items: [{ itemType: 4, itemId: 7001, itemName: "Voucher", price: 100, quantity: 1 }] },
    });

  it("takes ids up to the int64 maximum", async () => {
    const answer = await order("[7001, 9223372036854775807]");
    expect(answer.json.code, answer.text).toBe(0);
  });

  it("refuses an id beyond int64 with 100009 naming its place, and stores no order", async () => {
    const before = (await sb.sandbox.state.orders()).length;
    const answer = await order("[7001,9223372036854775808]");
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 100009, data: null });
    expect(answer.json.msg).toBe("body.voucherIds[1] must be <= 9223372036854775807 (int64)");
    expect((await sb.sandbox.state.orders()).length).toBe(before);
  });
});
