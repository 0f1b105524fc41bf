// Which merchants an app sees (100007 / 100008 / 200001 / 200002 and their precedence), and
// the lists: pagination defaults and maxima from the spec, name and status filters, nearby
// search and business hours on the sandbox clock.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/json/index.js";
import { defaultFixturesText } from "../../src/sandbox/index.js";
import { distanceMetres } from "../../src/sandbox/domain/stores.js";
import { BASIC, BIG_MERCHANT, DEMO_USER, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const ids = (list: { id: number | bigint }[]) => list.map((item) => BigInt(item.id));
const item = { itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 };

describe("permissions", () => {
  it("100007: the merchant list and detail need the merchant-module permission", async () => {
    for (const path of ["/merchants", "/merchants/10001"]) {
      const answer = await sb.signed({ path, app: BASIC });
      expect(answer.json.code).toBe(100007);
      expect(answer.status).toBe(403);
    }
    expect((await sb.signed({ path: "/stores?merchantId=10001", app: BASIC })).json.code).toBe(0);
  });

  it("100007 comes first: even an unknown merchant is 100007 without the permission", async () => {
    expect((await sb.signed({ path: "/merchants/99999", app: BASIC })).json.code).toBe(100007);
  });

  it.each([
    ["getMerchant", () => sb.signed({ path: "/merchants/10004" })],
    ["listStores", () => sb.signed({ path: "/stores?merchantId=10004" })],
    ["getStore", () => sb.signed({ path: "/stores/20005" })],
    ["listCardTemplates", () => sb.signed({ path: "/card-templates?merchantId=10004" })],
    ["createOrder", () => sb.signed({ path: "/orders", body: { merchantId: 10004, userId: DEMO_USER, orderType: 1, items: [item] } })],
    ["createCashierSession", () => sb.signed({ path: "/payment/cashier/create", body: { merchantId: 10004, outTradeNo: "p-1", totalAmount: 1, subject: "x", notifyUrl: "https://a.example/cb" } })],
  ])("100008: %s on a merchant that is not authorised", async (_name, request) => {
    const answer = await request();
    expect(answer.json.code).toBe(100008);
    expect(answer.status).toBe(403);
  });

  it.each([
    ["getMerchant", () => sb.signed({ path: "/merchants/77777" })],
    ["listStores", () => sb.signed({ path: "/stores?merchantId=77777" })],
    ["createOrder", () => sb.signed({ path: "/orders", body: { merchantId: 77777, userId: DEMO_USER, orderType: 1, items: [item] } })],
  ])("200001: %s on a merchant that does not exist", async (_name, request) => {
    const answer = await request();
    expect(answer.json.code).toBe(200001);
    expect(answer.status).toBe(404);
  });

  it.each([
    ["getMerchant (disabled)", () => sb.signed({ path: "/merchants/10003" })],
    ["getMerchant (cancelled)", () => sb.signed({ path: "/merchants/10005" })],
    ["listStores", () => sb.signed({ path: "/stores?merchantId=10003" })],
    ["getStore", () => sb.signed({ path: "/stores/20004" })],
    ["createOrder", () => sb.signed({ path: "/orders", body: { merchantId: 10003, userId: DEMO_USER, orderType: 1, items: [item] } })],
    ["purchaseMemberCard", () => sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10003, templateId: 60001, appUserId: DEMO_USER } })],
  ])("200002: %s on an offline merchant", async (_name, request) => {
    const answer = await request();
    expect(answer.json.code).toBe(200002);
    expect(answer.status).toBe(409);
  });

  it("authorisation comes before the offline check: an unauthorised offline merchant is 100008", async () => {
    expect((await sb.signed({ path: "/stores/20004", app: BASIC })).json.code).toBe(100008);
  });

  it("lists without a merchantId cover the authorised online merchants only", async () => {
    const stores = (await sb.signed({ path: "/stores?pageSize=100" })).json.data;
    expect(ids(stores.list)).toEqual([20001n, 20002n, 20003n, 9007199254740995n]);
    const basicStores = (await sb.signed({ path: "/stores", app: BASIC })).json.data;
    expect(ids(basicStores.list)).toEqual([20001n, 20002n, 20005n, 20006n]);
  });

  it("the app's orders and trades are its own", async () => {
    const orderId = await sb.createOrder();
    expect((await sb.signed({ path: `/orders/${orderId}?merchantId=10001`, app: BASIC })).json.code).toBe(300001);
    const { tradeNo } = await sb.createTrade();
    expect((await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}`, app: BASIC })).json.code).toBe(400001);
  });
});

describe("merchant list", () => {
  it("pages with the spec's defaults and refuses beyond its maximum", async () => {
    const first = (await sb.signed({ path: "/merchants" })).json.data;
    expect(first).toMatchObject({ page: 1, size: 10, total: 5 });
    const second = (await sb.signed({ path: "/merchants?pageNo=2&pageSize=2" })).json.data;
    expect(second).toMatchObject({ page: 2, size: 2, total: 5 });
    expect(ids(second.list)).toEqual([10003n, 10005n]);
    const beyond = (await sb.signed({ path: "/merchants?pageNo=9&pageSize=100" })).json.data;
    expect(beyond).toMatchObject({ list: [], total: 5, page: 9, size: 100 });
    expect((await sb.signed({ path: "/merchants?pageSize=101" })).json.msg).toBe("query.pageSize must be <= 100");
    expect((await sb.signed({ path: "/merchants?pageNo=0" })).json.msg).toBe("query.pageNo must be >= 1");
  });

  it("filters by name (case-insensitive substring) and by the 0/1/2 status scale", async () => {
    expect(ids((await sb.signed({ path: "/merchants?name=GARDEN" })).json.data.list)).toEqual([10001n]);
    const byStatus = async (status: number) => (await sb.signed({ path: `/merchants?status=${status}` })).json.data.list;
    expect(ids(await byStatus(0))).toEqual([10001n, 10002n, BIG_MERCHANT]);
    const disabled = await byStatus(1);
    expect(ids(disabled)).toEqual([10003n]);
    expect(disabled[0].status).toBe(0);
    const cancelled = await byStatus(2);
    expect(ids(cancelled)).toEqual([10005n]);
    expect(cancelled[0].status).toBe(1);
    expect((await sb.signed({ path: "/merchants?status=3" })).json.code).toBe(100009);
  });
});

describe("stores", () => {
  it("listStores filters by name and pages", async () => {
    expect(ids((await sb.signed({ path: "/stores?name=XUJIAHUI" })).json.data.list)).toEqual([20002n]);
    const page = (await sb.signed({ path: "/stores?pageSize=1&pageNo=2" })).json.data;
    expect(page).toMatchObject({ total: 4, pageNo: 2, pageSize: 1 });
    expect(ids(page.list)).toEqual([20002n]);
  });

  it("listNearbyStores measures haversine metres, keeps normal stores within the radius, nearest first", async () => {
    const [lat, lng] = [31.2304, 121.4737];
    const answer = (await sb.signed({ path: `/stores/nearby?latitude=${lat}&longitude=${lng}&radius=50000` })).json.data;
    expect(ids(answer.list)).toEqual([20001n, 20003n]);
    expect(answer.list[0].distance).toBe(Math.round(distanceMetres(lat, lng, 31.2345, 121.4737)));
    expect(answer.list[0].distance).toBeGreaterThan(440);
    expect(answer.list[0].distance).toBeLessThan(470);
    expect(answer.list[1].distance).toBeGreaterThan(answer.list[0].distance);
    const near = (await sb.signed({ path: `/stores/nearby?latitude=${lat}&longitude=${lng}&radius=1000` })).json.data;
    expect(ids(near.list)).toEqual([20001n]);
    expect(near.pageSize).toBe(10);
    expect((await sb.signed({ path: `/stores/nearby?latitude=91&longitude=0` })).json.msg).toBe("query.latitude must be <= 90");
    expect((await sb.signed({ path: `/stores/nearby?longitude=0` })).json.msg).toBe("query.latitude is required");
  });

  it("getStoreBusinessHours computes openNow on the sandbox clock in the store's time zone", async () => {
    const openNow = async (localTime: string) => {
      sb.baseClock.set(Date.parse(localTime) - sb.sandbox.clock.offsetMs);
      return (await sb.signed({ path: "/stores/20001/business-hours" })).json.data.openNow;
    };
    const original = sb.baseClock.now();
    try {
      expect(await openNow("2026-11-22T10:15:30+08:00")).toBe(true); // Sunday 10:00-22:00
      expect(await openNow("2026-11-22T22:00:00+08:00")).toBe(false); // closing time is exclusive
      expect(await openNow("2026-11-23T12:00:00+08:00")).toBe(false); // Monday: closed
      expect(await openNow("2026-11-24T15:00:00+08:00")).toBe(false); // Tuesday between periods
      expect(await openNow("2026-11-24T17:00:00+08:00")).toBe(true);
      expect(await openNow("2026-11-28T23:59:00+08:00")).toBe(true); // Saturday until 24:00
    } finally {
      sb.baseClock.set(original);
    }
  });

  it("uses each store's own time zone", async () => {
    const fixtures = parseJsonLossless(defaultFixturesText()) as { stores: { id: number; timezone: string; weekly: unknown[] }[] };
    const store = fixtures.stores.find((s) => s.id === 20003)!;
    store.timezone = "America/New_York";
    store.weekly = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, periods: [{ open: "09:00", close: "17:00" }] }));
    const other = await startSandbox({ fixtures });
    try {
      // T0 is Sunday 10:15 in Shanghai but Saturday 21:15 in New York.
      const hours = (await other.signed({ path: "/stores/20003/business-hours" })).json.data;
      expect(hours).toMatchObject({ timezone: "America/New_York", openNow: false });
      other.sandbox.clock.advance(12 * 3600_000);
      expect((await other.signed({ path: "/stores/20003/business-hours" })).json.data.openNow).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe("card templates", () => {
  it("pages with the spec's defaults", async () => {
    const page = (await sb.signed({ path: "/card-templates?pageSize=2&pageNo=3" })).json.data;
    expect(page).toMatchObject({ total: 6, pageNo: 3, pageSize: 2 });
    expect(ids(page.list)).toEqual([60005n, 9007199254740997n]);
    expect((await sb.signed({ path: "/card-templates?pageSize=101" })).json.code).toBe(100009);
  });
});
