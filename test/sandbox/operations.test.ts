// Every operation of the signed interface answers its success envelope, and the answer fits the
// spec (checked here independently of the sandbox's own response validation).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ORDER_ID_BASE } from "../../src/sandbox/index.js";
import { BIG_MERCHANT, DEMO_USER, startSandbox, successSchemaErrors, type Answer, type TestSandbox, expectSuccess } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const ok = (operationId: string, answer: Answer) => expectSuccess("signed", operationId, answer);

describe("customers", () => {
  it("syncCustomer creates a mapping once and answers the same appUserId afterwards", async () => {
    const first = ok("syncCustomer", await sb.signed({ path: "/customers/sync", body: { openUserId: "op-user-1", nickname: "Ada" } }));
    expect(first.created).toBe(true);
    const again = ok("syncCustomer", await sb.signed({ path: "/customers/sync", body: { openUserId: "op-user-1", mobile: "+8613900000000" } }));
    expect(again).toEqual({ appUserId: first.appUserId, openUserId: "op-user-1", created: false });
  });

  it("keeps mappings per app", async () => {
    const demo = await sb.syncUser("shared-user");
    const basic = await sb.syncUser("shared-user", { appKey: "basic-app-key", appSecret: "basic-app-secret" });
    expect(demo).not.toBe(basic);
  });
});

describe("orders", () => {
  it("createOrder answers an id above 2^53 that getOrder finds again by its exact digits", async () => {
    const created = await sb.signed({
      path: "/orders",
      body: {
        merchantId: 10001,
        storeId: 20001,
        userId: DEMO_USER,
        orderType: 1,
        remark: "Less ice",
        items: [
          { itemType: 2, itemId: 31001, itemName: "Oolong milk tea (large)", price: 1800, quantity: 2 },
          { itemType: 1, itemId: 31002, itemName: "Egg tart", price: 650, quantity: 1 },
        ],
      },
    });
    const id = ok("createOrder", created) as bigint;
    expect(typeof id).toBe("bigint");
    expect(id > ORDER_ID_BASE).toBe(true);
    expect(BigInt(Number(id)), "a double cannot hold an order id").not.toBe(id);
    expect(created.text).toContain(`"data":${id}`);
    const order = ok("getOrder", await sb.signed({ path: `/orders/${id}?merchantId=10001` }));
    expect(order.id).toBe(id);
    expect(order).toMatchObject({ merchantId: 10001, storeId: 20001, totalAmount: 4250, status: 0, remark: "Less ice", payTime: null, completeTime: null });
    expect(order.createTime).toBe("2026-11-22T10:15:30+08:00");
  });

  it("works for a merchant and ids above 2^53 on both sides", async () => {
    const id = await sb.createOrder({ merchantId: BIG_MERCHANT, storeId: 9007199254740995n });
    const order = ok("getOrder", await sb.signed({ path: `/orders/${id}?merchantId=${BIG_MERCHANT}` }));
    expect(order.merchantId).toBe(BIG_MERCHANT);
    expect(order.storeId).toBe(9007199254740995n);
  });

  it("payOrder, the cashier payment and refundOrder walk the order through 0 → 1 → 5", async () => {
    const id = await sb.createOrder();
    const payment = ok("payOrder", await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb", attach: "a" } }));
    expect(payment).toMatchObject({ orderId: id, outTradeNo: `ORDER-${id}` });
    expect(payment.cashierUrl).toMatch(new RegExp(`^${sb.url}/cashier/${payment.tradeNo}\\?key=[A-Za-z0-9_-]{22}$`));
    expect((await sb.control("POST", `/trades/${payment.tradeNo}/pay`)).json.code).toBe(0);
    const refund = ok("refundOrder", await sb.signed({ path: `/orders/${id}/refund?merchantId=10001`, body: { reason: "out of stock", outRefundNo: "R-1" } }));
    expect(refund).toMatchObject({ orderId: id, merchantId: 10001, refundAmount: 3600, reason: "out of stock", outRefundNo: "R-1", status: "SUCCESS" });
    const history = ok("listOrderStatusHistory", await sb.signed({ path: `/orders/${id}/status-history?merchantId=10001` }));
    expect(history.map((h: { toStatus: number }) => h.toStatus)).toEqual([0, 1, 5]);
    const trade = ok("queryPayment", await sb.signed({ path: `/payment/query?tradeNo=${payment.tradeNo}` }));
    expect(trade).toMatchObject({ tradeStatus: "REFUND", payTime: null, attach: "a" });
  });

  it("cancelOrder answers the cancelled order", async () => {
    const id = await sb.createOrder();
    const order = ok("cancelOrder", await sb.signed({ path: `/orders/${id}/cancel`, body: { merchantId: 10001, reason: "changed my mind" } }));
    expect(order.status).toBe(4);
  });

  it("writeOffOrder completes a paid voucher order, with or without a body", async () => {
    for (const body of [{ storeId: 20001, remark: "front desk" }, undefined]) {
      const id = await sb.createOrder({ orderType: 3 });
      const { tradeNo } = (await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } })).json.data;
      await sb.control("POST", `/trades/${tradeNo}/pay`);
      const order = ok("writeOffOrder", await sb.signed({ method: "POST", path: `/orders/${id}/write-off?merchantId=10001`, body }));
      expect(order.status).toBe(3);
      expect(order.completeTime).toBe("2026-11-22T10:15:30+08:00");
    }
  });
});

describe("payment", () => {
  it("createCashierSession answers a digit tradeNo and the cashier URL; queryPayment reads it back", async () => {
    const session = ok("createCashierSession", await sb.signed({
      path: "/payment/cashier/create",
      body: { merchantId: 10001, outTradeNo: "M20261122-000123", totalAmount: 4250, subject: "Tea house order 000123", body: "2 teas", notifyUrl: "https://app.example.com/cb", returnUrl: "https://app.example.com/r", expireMinutes: 15, attach: '{"cartId":"c-889","coupon":null}' },
    }));
    expect(session.tradeNo).toMatch(/^[1-9][0-9]{18}$/);
    expect(session.cashierUrl).toMatch(new RegExp(`^${sb.url}/cashier/${session.tradeNo}\\?key=[A-Za-z0-9_-]{22}$`));
    const trade = ok("queryPayment", await sb.signed({ path: `/payment/query?tradeNo=${session.tradeNo}` }));
    expect(trade).toEqual({ tradeNo: session.tradeNo, outTradeNo: "M20261122-000123", tradeStatus: "WAIT_BUYER_PAY", totalAmount: 4250, payTime: null, attach: '{"cartId":"c-889","coupon":null}' });
  });

  it("queryPayment shows payTime once paid, and attach null when none was given", async () => {
    const { tradeNo } = await sb.createTrade();
    await sb.control("POST", `/trades/${tradeNo}/pay`);
    const trade = ok("queryPayment", await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` }));
    expect(trade).toMatchObject({ tradeStatus: "SUCCESS", payTime: "2026-11-22T10:15:30+08:00", attach: null });
  });
});

describe("member cards", () => {
  it("purchaseMemberCard opens a direct card (resultType 1) and submits a credit application (resultType 2)", async () => {
    const direct = ok("purchaseMemberCard", await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60001, appUserId: DEMO_USER, tierId: 61001 } }));
    expect(direct.resultType).toBe(1);
    const credit = ok("purchaseMemberCard", await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60004, appUserId: DEMO_USER } }));
    expect(credit.resultType).toBe(2);
    expect(credit.id).not.toBe(direct.id);
  });

  it("listCardTemplates lists one merchant's templates, or all authorised online merchants'", async () => {
    const one = ok("listCardTemplates", await sb.signed({ path: "/card-templates?merchantId=10001" }));
    expect(one.list.map((t: { cardType: number }) => t.cardType).sort()).toEqual([0, 1, 1, 2]);
    expect(one).toMatchObject({ total: 4, pageNo: 1, pageSize: 10 });
    const all = ok("listCardTemplates", await sb.signed({ path: "/card-templates" }));
    expect(all.list.map((t: { id: bigint | number }) => BigInt(t.id))).toEqual([60001n, 60002n, 60003n, 60004n, 60005n, 9007199254740997n]);
  });
});

describe("merchants and stores", () => {
  it("listMerchants lists the authorised merchants with page/size", async () => {
    const page = ok("listMerchants", await sb.signed({ path: "/merchants" }));
    expect(page.list.map((m: { id: number | bigint }) => BigInt(m.id))).toEqual([10001n, 10002n, 10003n, 10005n, BIG_MERCHANT]);
    expect(page).toMatchObject({ total: 5, page: 1, size: 10 });
  });

  it("getMerchant masks the phone and counts the stores", async () => {
    const merchant = ok("getMerchant", await sb.signed({ path: "/merchants/10001" }));
    expect(merchant).toMatchObject({ id: 10001, contactPhone: "138****8000", storeCount: 2 });
  });

  it("listStores, getStore, listNearbyStores and getStoreBusinessHours answer", async () => {
    const stores = ok("listStores", await sb.signed({ path: "/stores?merchantId=10001" }));
    expect(stores.list.map((s: { id: number }) => s.id)).toEqual([20001, 20002]);
    const store = ok("getStore", await sb.signed({ path: "/stores/20001" }));
    expect(store).toMatchObject({ id: 20001, city: "Shanghai", createTime: "2025-03-01T09:00:00+08:00" });
    const nearby = ok("listNearbyStores", await sb.signed({ path: "/stores/nearby?latitude=31.2304&longitude=121.4737" }));
    expect(nearby.list[0]).toMatchObject({ id: 20001 });
    const hours = ok("getStoreBusinessHours", await sb.signed({ path: "/stores/20001/business-hours" }));
    expect(hours.weekly).toHaveLength(7);
    expect(hours.timezone).toBe("Asia/Shanghai");
  });
});

describe("base paths", () => {
  it("answers the same operations on the unversioned /open-api path", async () => {
    const versioned = await sb.signed({ path: "/open-api/v1/merchants/10002" });
    const unversioned = await sb.signed({ path: "/open-api/merchants/10002" });
    expect(unversioned.status).toBe(200);
    expect(unversioned.json).toEqual(versioned.json);
    const id = BigInt(ok("createOrder", await sb.signed({ path: "/open-api/orders", body: { merchantId: 10001, userId: DEMO_USER, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "x", price: 1, quantity: 1 }] } })));
    expect(ok("getOrder", await sb.signed({ path: `/open-api/orders/${id}?merchantId=10001` })).id).toBe(id);
  });

  it("never serves the control API under the signed or key-based paths", async () => {
    for (const path of ["/open-api/sandbox/clock", "/open-api/v1/sandbox/clock"]) {
      const answer = await sb.signed({ path });
      expect(answer.json.code).toBe(100015);
    }
    expect((await sb.keyed("/sandbox/clock")).json.code).toBe(404);
  });
});
