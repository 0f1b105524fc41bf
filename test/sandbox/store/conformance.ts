// The store conformance suite (DESIGN item 17): one set of tests, run against every
// implementation of SandboxRecords (memory.test.ts, postgres.test.ts), so that no behaviour the
// domain relies on can differ between them: reads answer copies, a transaction's changes are
// kept together or not at all, unique keys and quotas are the store's own rules, concurrent
// transactions of one app never interleave, resets are per app, the callback log keeps what a
// committed transaction enqueued and nothing else.
import { describe, expect, it } from "vitest";
import { RefusalError, type CallbackDelivery } from "../../../src/server/index.js";
import {
  defaultFixtures,
  StoreConflictError,
  type CustomerRecord,
  type OrderRecord,
  type RefundRecord,
  type SandboxRecords,
  type StoreQuotas,
  type TradeRecord,
} from "../../../src/sandbox/index.js";

export const APP = "demo-app-key";
export const OTHER_APP = "basic-app-key";
export const NOW = Date.parse("2026-11-22T02:15:30Z");

export interface StoreUnderTest {
  records: SandboxRecords;
  close(): Promise<void>;
}

/** Makes an empty store over the default fixtures, with these quotas. */
export type MakeStore = (quotas: StoreQuotas) => Promise<StoreUnderTest>;

let serial = 0;
const next = () => (serial += 1);

export function orderRecord(appKey = APP, overrides: Partial<OrderRecord> = {}): OrderRecord {
  const id = 2n ** 53n + 2n * BigInt(next()) - 1n;
  return {
    id,
    appKey,
    merchantId: 10001n,
    storeId: null,
    userId: 880000000001n,
    orderType: 1,
    couponId: null,
    voucherIds: null,
    remark: null,
    items: [{ itemType: 1, itemId: 31001n, itemName: "Oolong milk tea", itemCoverUrl: null, specValues: null, price: 1800, quantity: 2 }],
    totalAmount: 3600,
    status: 0,
    createTime: NOW + serial,
    payTime: null,
    completeTime: null,
    history: [{ fromStatus: null, toStatus: 0, changeTime: NOW, reason: "created" }],
    tradeNos: [],
    paidTradeNo: null,
    ...overrides,
  };
}

export function tradeRecord(appKey = APP, overrides: Partial<TradeRecord> = {}): TradeRecord {
  const n = next();
  return {
    tradeNo: `20261122101530${String(n).padStart(5, "0")}`,
    appKey,
    merchantId: 10001n,
    outTradeNo: `OUT-${n}`,
    totalAmount: 4250,
    subject: "Tea",
    body: null,
    notifyUrl: "https://app.example/cb",
    returnUrl: null,
    expireMinutes: 30,
    attach: null,
    status: "WAIT_BUYER_PAY",
    createTime: NOW + n,
    expireTime: NOW + 30 * 60_000,
    payTime: null,
    closeTime: null,
    closeReason: null,
    refundTime: null,
    orderId: null,
    unknownUntil: null,
    unknownThen: null,
    ...overrides,
  };
}

export function refundRecord(orderId: bigint, appKey = APP, overrides: Partial<RefundRecord> = {}): RefundRecord {
  const n = next();
  return { refundNo: `R${String(n).padStart(18, "0")}`, appKey, orderId, merchantId: 10001n, refundAmount: 3600, reason: "changed mind", outRefundNo: null, createTime: NOW + n, ...overrides };
}

export function customerRecord(appKey = APP, overrides: Partial<CustomerRecord> = {}): CustomerRecord {
  const n = next();
  return { appKey, appUserId: 890_000_000_000n + BigInt(n), openUserId: `open-${n}`, nickname: null, mobile: null, avatarUrl: null, createTime: NOW, updateTime: NOW, ...overrides };
}

export function delivery(appKey = APP, overrides: Partial<CallbackDelivery> = {}): CallbackDelivery {
  const n = next();
  return {
    eventId: `evt_conformance${String(n).padStart(9, "0")}`,
    type: "payment.succeeded",
    appKey,
    targetUrl: "https://app.example/cb",
    tradeNo: `20261122101530${String(n).padStart(5, "0")}`,
    applicationId: null,
    body: JSON.stringify({ n }),
    createTime: NOW + n,
    status: "pending",
    attempts: [],
    nextAttemptTime: NOW,
    failureReason: null,
    ...overrides,
  };
}

const QUOTAS: StoreQuotas = { maxOrdersPerApp: 3, maxTradesPerApp: 4 };

async function conflict(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, "the store accepted a duplicate").toBeInstanceOf(StoreConflictError);
  return (error as StoreConflictError).constraint;
}

async function refusal(work: Promise<unknown>): Promise<RefusalError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RefusalError);
  return error as RefusalError;
}

/** Runs the suite against one kind of store. */
export function storeConformance(name: string, makeStore: MakeStore): void {
  const withStore = (test: (records: SandboxRecords) => Promise<void>, quotas: StoreQuotas = QUOTAS) => async () => {
    const store = await makeStore(quotas);
    try {
      await test(store.records);
    } finally {
      await store.close();
    }
  };

  describe(`the ${name} store`, () => {
    it("reads the fixtures' reference records synchronously, and their customers", withStore(async (records) => {
      const fixtures = defaultFixtures();
      expect(records.apps().map((app) => app.appKey)).toEqual(fixtures.apps.map((app) => app.appKey));
      expect(records.merchant(10001n)?.merchantName).toBe(fixtures.merchants.find((m) => m.id === 10001n)?.merchantName);
      expect(records.store(fixtures.stores[0]!.id)).toEqual(fixtures.stores[0]);
      expect(records.apiKey("demo-api-key")?.merchants.length).toBeGreaterThan(0);
      const customer = fixtures.customers[0]!;
      expect(await records.customerByOpenUserId(customer.appKey, customer.openUserId)).toEqual(customer);
      expect(await records.customerByAppUserId(customer.appKey, customer.appUserId)).toEqual(customer);
      expect(await records.customerByAppUserId(OTHER_APP === customer.appKey ? APP : OTHER_APP, customer.appUserId)).toBeUndefined();
    }));

    it("keeps every record exactly (ids above 2^53 and small ones alike as bigints) and answers copies", withStore(async (records) => {
      const order = orderRecord(APP, { storeId: 9007199254740993n, remark: "less ice", voucherIds: "[1,2]" });
      const trade = tradeRecord(APP, { orderId: order.id, attach: '{"x":"✓"}' });
      const customer = customerRecord(APP, { nickname: "Ann", mobile: "13800138000" });
      await records.transaction(APP, async (tx) => {
        await tx.insertOrder(order);
        await tx.insertTrade(trade);
        await tx.insertCustomer(customer);
        await tx.insertMemberCard({ id: 900_000_000_101n, appKey: APP, merchantId: 10001n, templateId: 60001n, appUserId: customer.appUserId, tierId: null, createTime: NOW, applicationId: null });
        await tx.insertApplication({ id: 910_000_000_201n, appKey: APP, merchantId: 10001n, templateId: 60004n, appUserId: customer.appUserId, tierId: 7n, status: "PENDING", createTime: NOW, reviewTime: null, reason: null, memberCardId: null });
      });
      expect(await records.order(order.id)).toEqual(order);
      expect(await records.trade(trade.tradeNo)).toEqual(trade);
      expect(await records.tradeByOutTradeNo(APP, trade.outTradeNo)).toEqual(trade);
      expect(await records.tradeByOutTradeNo(OTHER_APP, trade.outTradeNo)).toBeUndefined();
      expect(await records.customerByOpenUserId(APP, customer.openUserId)).toEqual(customer);
      expect((await records.memberCard(900_000_000_101n))?.templateId).toBe(60001n);
      expect((await records.application(910_000_000_201n))?.tierId).toBe(7n);
      const copy = (await records.order(order.id))!;
      copy.status = 4;
      copy.items[0]!.quantity = 99;
      expect(await records.order(order.id)).toEqual(order);
    }));

    it("updates records in a transaction, and refuses to update one never inserted", withStore(async (records) => {
      const order = orderRecord();
      await records.transaction(APP, (tx) => tx.insertOrder(order));
      await records.transaction(APP, async (tx) => {
        const read = (await tx.order(order.id))!;
        read.status = 1;
        read.history.push({ fromStatus: 0, toStatus: 1, changeTime: NOW + 1, reason: "paid" });
        await tx.updateOrder(read);
        // The transaction reads its own change.
        expect((await tx.order(order.id))?.status).toBe(1);
      });
      expect((await records.order(order.id))?.history).toHaveLength(2);
      await expect(records.transaction(APP, (tx) => tx.updateTrade(tradeRecord()))).rejects.toThrow(/does not exist/);
    }));

    it("keeps all of a transaction or none of it", withStore(async (records) => {
      const order = orderRecord();
      const trade = tradeRecord();
      const log = delivery();
      await expect(
        records.transaction(APP, async (tx) => {
          await tx.insertOrder(order);
          await tx.insertTrade(trade);
          await tx.enqueueCallback(log);
          throw new Error("the request failed after its inserts");
        }),
      ).rejects.toThrow(/failed after/);
      expect(await records.order(order.id)).toBeUndefined();
      expect(await records.trade(trade.tradeNo)).toBeUndefined();
      expect(await records.callbackLog.list({ eventId: log.eventId })).toEqual([]);
      // Nothing was counted either: the whole quota is still there.
      for (let i = 0; i < QUOTAS.maxOrdersPerApp; i++) await records.transaction(APP, (tx) => tx.insertOrder(orderRecord()));
    }));

    it("refuses a second trade with an app's outTradeNo, a second refund of an order or with an outRefundNo, a second customer with an openUserId", withStore(async (records) => {
      const trade = tradeRecord();
      await records.transaction(APP, (tx) => tx.insertTrade(trade));
      expect(await conflict(records.transaction(APP, (tx) => tx.insertTrade(tradeRecord(APP, { outTradeNo: trade.outTradeNo }))))).toBe("trades_out_trade_no");
      expect(await conflict(records.transaction(APP, (tx) => tx.insertTrade({ ...tradeRecord(), tradeNo: trade.tradeNo })))).toBe("trades_pkey");
      // Another app's namespace is its own.
      await records.transaction(OTHER_APP, (tx) => tx.insertTrade(tradeRecord(OTHER_APP, { outTradeNo: trade.outTradeNo })));

      const order = orderRecord();
      await records.transaction(APP, (tx) => tx.insertOrder(order));
      await records.transaction(APP, (tx) => tx.insertRefund(refundRecord(order.id, APP, { outRefundNo: "RF-1" })));
      expect(await conflict(records.transaction(APP, (tx) => tx.insertRefund(refundRecord(order.id))))).toBe("refunds_order_id");
      const second = orderRecord();
      await records.transaction(APP, (tx) => tx.insertOrder(second));
      expect(await conflict(records.transaction(APP, (tx) => tx.insertRefund(refundRecord(second.id, APP, { outRefundNo: "RF-1" }))))).toBe("refunds_out_refund_no");
      expect((await records.refundByOutRefundNo(APP, "RF-1"))?.orderId).toBe(order.id);

      const customer = customerRecord();
      await records.transaction(APP, (tx) => tx.insertCustomer(customer));
      expect(await conflict(records.transaction(APP, (tx) => tx.insertCustomer(customerRecord(APP, { openUserId: customer.openUserId }))))).toBe("customers_open_user_id");
      await records.transaction(OTHER_APP, (tx) => tx.insertCustomer(customerRecord(OTHER_APP, { openUserId: customer.openUserId })));
    }));

    it("refuses a transaction's write of another app's record", withStore(async (records) => {
      await expect(records.transaction(APP, (tx) => tx.insertOrder(orderRecord(OTHER_APP)))).rejects.toThrow(/cannot write/);
      await expect(records.transaction(APP, (tx) => tx.enqueueCallback(delivery(OTHER_APP)))).rejects.toThrow(/cannot write/);
    }));

    it("runs an app's transactions one at a time: 20 concurrent check-then-insert with one outTradeNo make one trade", withStore(async (records) => {
      const attempts = Array.from({ length: 20 }, () =>
        records.transaction(APP, async (tx) => {
          const existing = await tx.tradeByOutTradeNo(APP, "ONE-OUT-TRADE-NO");
          if (existing) return existing.tradeNo;
          const trade = tradeRecord(APP, { outTradeNo: "ONE-OUT-TRADE-NO" });
          await tx.insertTrade(trade);
          return trade.tradeNo;
        }),
      );
      const tradeNos = await Promise.all(attempts);
      expect(new Set(tradeNos).size).toBe(1);
      expect((await records.trades({ appKey: APP })).filter((trade) => trade.outTradeNo === "ONE-OUT-TRADE-NO")).toHaveLength(1);
    }, { maxOrdersPerApp: 100, maxTradesPerApp: 100 }));

    it("moves a state once under a race: 10 concurrent refunds of one paid order refund it once", withStore(async (records) => {
      const order = orderRecord(APP, { status: 1 });
      await records.transaction(APP, (tx) => tx.insertOrder(order));
      const refunds = await Promise.all(
        Array.from({ length: 10 }, () =>
          records.transaction(APP, async (tx) => {
            const current = (await tx.order(order.id))!;
            if (current.status !== 1) return false;
            current.status = 5;
            await tx.updateOrder(current);
            await tx.insertRefund(refundRecord(order.id));
            return true;
          }),
        ),
      );
      expect(refunds.filter(Boolean)).toHaveLength(1);
      expect((await records.refunds({ appKey: APP })).filter((refund) => refund.orderId === order.id)).toHaveLength(1);
      expect((await records.order(order.id))?.status).toBe(5);
    }));

    it("counts quotas per app in the store, concurrent inserts included, and a reset of the app frees them", withStore(async (records) => {
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => records.transaction(APP, (tx) => tx.insertOrder(orderRecord()))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(QUOTAS.maxOrdersPerApp);
      const refused = await refusal(records.transaction(APP, (tx) => tx.insertOrder(orderRecord())));
      expect(refused.entry.code).toBe(100018);
      expect(refused.message).toContain(`already has ${QUOTAS.maxOrdersPerApp} orders`);
      for (let i = 0; i < QUOTAS.maxTradesPerApp; i++) await records.transaction(APP, (tx) => tx.insertTrade(tradeRecord()));
      expect((await refusal(records.transaction(APP, (tx) => tx.insertTrade(tradeRecord())))).message).toContain(`already has ${QUOTAS.maxTradesPerApp} payment trades`);
      // The other app has its own.
      await records.transaction(OTHER_APP, (tx) => tx.insertOrder(orderRecord(OTHER_APP)));
      await records.reset(APP);
      await records.transaction(APP, (tx) => tx.insertOrder(orderRecord()));
      await records.transaction(APP, (tx) => tx.insertTrade(tradeRecord()));
    }));

    it("resets one app's records only, restoring its fixture customers; a reset of every app restores all", withStore(async (records) => {
      const fixtureCustomer = defaultFixtures().customers.find((customer) => customer.appKey === APP)!;
      const mine = { order: orderRecord(), trade: tradeRecord(), customer: customerRecord(), log: delivery() };
      const theirs = { order: orderRecord(OTHER_APP), trade: tradeRecord(OTHER_APP), customer: customerRecord(OTHER_APP), log: delivery(OTHER_APP) };
      for (const [appKey, set] of [[APP, mine], [OTHER_APP, theirs]] as const) {
        await records.transaction(appKey, async (tx) => {
          await tx.insertOrder(set.order);
          await tx.insertTrade(set.trade);
          await tx.insertCustomer(set.customer);
          await tx.insertRefund(refundRecord(set.order.id, appKey, { outRefundNo: "RF-RESET" }));
          await tx.enqueueCallback(set.log);
        });
      }
      await records.transaction(APP, (tx) => tx.updateCustomer({ ...fixtureCustomer, nickname: "changed" }));

      await records.reset(APP);
      expect(await records.order(mine.order.id)).toBeUndefined();
      expect(await records.trade(mine.trade.tradeNo)).toBeUndefined();
      expect(await records.customerByOpenUserId(APP, mine.customer.openUserId)).toBeUndefined();
      expect(await records.refundByOutRefundNo(APP, "RF-RESET")).toBeUndefined();
      expect(await records.callbackLog.list({ appKey: APP })).toEqual([]);
      expect(await records.customerByOpenUserId(APP, fixtureCustomer.openUserId)).toEqual(fixtureCustomer);
      expect(await records.order(theirs.order.id)).toEqual(theirs.order);
      expect(await records.trade(theirs.trade.tradeNo)).toEqual(theirs.trade);
      expect(await records.customerByOpenUserId(OTHER_APP, theirs.customer.openUserId)).toEqual(theirs.customer);
      expect(await records.refundByOutRefundNo(OTHER_APP, "RF-RESET")).toBeDefined();
      expect((await records.callbackLog.list({ appKey: OTHER_APP })).map((d) => d.eventId)).toEqual([theirs.log.eventId]);
      // Its keys are free again.
      await records.transaction(APP, (tx) => tx.insertTrade({ ...tradeRecord(), outTradeNo: mine.trade.outTradeNo }));

      await records.reset();
      expect(await records.order(theirs.order.id)).toBeUndefined();
      expect(await records.trades()).toEqual([]);
      expect(await records.callbackLog.list()).toEqual([]);
      expect(await records.customerByOpenUserId(fixtureCustomer.appKey, fixtureCustomer.openUserId)).toEqual(fixtureCustomer);
    }));

    it("lists orders, trades and refunds newest first, per app and at most a limit", withStore(async (records) => {
      const orders = [orderRecord(), orderRecord(OTHER_APP), orderRecord()];
      for (const order of orders) await records.transaction(order.appKey, (tx) => tx.insertOrder(order));
      expect((await records.orders()).map((order) => order.id)).toEqual([orders[2]!.id, orders[1]!.id, orders[0]!.id]);
      expect((await records.orders({ appKey: APP })).map((order) => order.id)).toEqual([orders[2]!.id, orders[0]!.id]);
      expect((await records.orders({ limit: 1 })).map((order) => order.id)).toEqual([orders[2]!.id]);
      const trades = [tradeRecord(), tradeRecord()];
      for (const trade of trades) await records.transaction(APP, (tx) => tx.insertTrade(trade));
      expect((await records.trades({ limit: 5 })).map((trade) => trade.tradeNo)).toEqual([trades[1]!.tradeNo, trades[0]!.tradeNo]);
    }, { maxOrdersPerApp: 10, maxTradesPerApp: 10 }));

    it("finds the trades the clock has made due: waiting past expiry, UNKNOWN past their result's time; soonest first", withStore(async (records) => {
      const late = tradeRecord(APP, { expireTime: NOW + 2000 });
      const early = tradeRecord(OTHER_APP, { expireTime: NOW + 1000 });
      const paid = tradeRecord(APP, { expireTime: NOW, status: "SUCCESS" });
      const future = tradeRecord(APP, { expireTime: NOW + 60_000 });
      const unknown = tradeRecord(APP, { expireTime: NOW, status: "UNKNOWN", unknownUntil: NOW + 1500, unknownThen: "SUCCESS" });
      const unknownForGood = tradeRecord(APP, { expireTime: NOW, status: "UNKNOWN", unknownUntil: null, unknownThen: "SUCCESS" });
      for (const trade of [late, early, paid, future, unknown, unknownForGood]) await records.transaction(trade.appKey, (tx) => tx.insertTrade(trade));
      expect((await records.dueTrades(NOW + 5000)).map((trade) => trade.tradeNo)).toEqual([early.tradeNo, unknown.tradeNo, late.tradeNo]);
      expect(await records.dueTrades(NOW)).toEqual([]);
    }, { maxOrdersPerApp: 10, maxTradesPerApp: 10 }));

    it("hands out distinct, increasing sequence values, concurrently and across apps", withStore(async (records) => {
      const values = await Promise.all(Array.from({ length: 30 }, (_, i) => records.transaction(i % 2 === 0 ? APP : OTHER_APP, (tx) => tx.nextSequence("order"))));
      expect(new Set(values).size).toBe(30);
      const [first, second] = await records.transaction(APP, async (tx) => [await tx.nextSequence("trade"), await tx.nextSequence("trade")]);
      expect(second).toBeGreaterThan(first!);
    }));

    it("keeps the clock offset: read, advanced, reset", withStore(async (records) => {
      expect(await records.clockOffset.read()).toBe(0);
      expect(await records.clockOffset.advance(90_000)).toBe(90_000);
      expect(await records.clockOffset.advance(10_000)).toBe(100_000);
      expect(await records.clockOffset.read()).toBe(100_000);
      expect(await records.clockOffset.reset()).toBe(0);
      expect(await records.clockOffset.read()).toBe(0);
    }));

    it("keeps faults: met oldest first, one use per take, per app or for every app, bounded per scope, cleared per app", withStore(async (records) => {
      const hit = () => ({ time: NOW, method: "GET", path: "/open-api/v1/stores", appKey: APP, carriedOut: false, operationCode: null, status: null, code: null });
      const behaviour = { kind: "internal-error" as const, when: "before" as const, delayMs: null, retryAfterSeconds: null };
      const mine = await records.faults.add({ ...behaviour, operationId: "listStores", appKey: APP, times: 1 }, NOW);
      const everyApp = await records.faults.add({ ...behaviour, operationId: "listStores", appKey: null, times: 2 }, NOW);
      const theirs = await records.faults.add({ ...behaviour, operationId: "listStores", appKey: OTHER_APP, times: 1 }, NOW);
      expect([mine.faultId, everyApp.faultId, theirs.faultId]).toEqual(["flt_1", "flt_2", "flt_3"]);
      expect((await records.faults.take("listStores", APP, hit()))?.faultId).toBe("flt_1");
      expect((await records.faults.take("listStores", APP, hit()))?.faultId).toBe("flt_2");
      // The key-based interface (no app key) meets only faults for every app.
      expect((await records.faults.take("listStores", undefined, hit()))?.faultId).toBe("flt_2");
      expect(await records.faults.take("listStores", undefined, hit())).toBeUndefined();
      expect(await records.faults.take("getStore", OTHER_APP, hit())).toBeUndefined();
      const listed = await records.faults.list({ appKey: APP });
      expect(listed.map((fault) => [fault.faultId, fault.remaining, fault.hits.length])).toEqual([["flt_1", 0, 1], ["flt_2", 0, 2]]);
      await records.faults.finishHit("flt_1", { ...hit(), status: 500, code: 100099 });
      expect((await records.faults.list({ appKey: APP }))[0]?.hits[0]).toMatchObject({ status: 500, code: 100099 });
      expect((await records.faults.delete("flt_3"))?.appKey).toBe(OTHER_APP);
      expect(await records.faults.delete("flt_3")).toBeUndefined();
      // 100 per scope; a spent one makes room, else 100018.
      for (let i = 1; i < 100; i++) await records.faults.add({ ...behaviour, operationId: "getStore", appKey: APP, times: 1 }, NOW);
      await records.faults.add({ ...behaviour, operationId: "getStore", appKey: APP, times: 1 }, NOW);
      expect((await records.faults.list({ operationId: "listStores", appKey: APP })).map((fault) => fault.faultId)).toEqual(["flt_2"]);
      await expect(records.faults.add({ ...behaviour, operationId: "getStore", appKey: APP, times: 1 }, NOW)).rejects.toMatchObject({ entry: { code: 100018 } });
      await records.faults.clear(APP);
      expect((await records.faults.list()).map((fault) => fault.faultId)).toEqual(["flt_2"]);
      await records.faults.clear();
      expect(await records.faults.list()).toEqual([]);
      expect((await records.faults.add({ ...behaviour, operationId: "listStores", appKey: null, times: 1 }, NOW)).faultId).toBe("flt_1");
    }));

    it("keeps a committed transaction's callback deliveries: listed newest first and filtered, claimed while pending, saved, reopened", withStore(async (records) => {
      const first = delivery(APP, { tradeNo: "20261122101530000A1" });
      const second = delivery(APP, { type: "member_card.application.approved", tradeNo: null, applicationId: 910_000_000_201n });
      const theirs = delivery(OTHER_APP);
      await records.transaction(APP, async (tx) => {
        await tx.enqueueCallback(first);
        await tx.enqueueCallback(second);
      });
      await records.transaction(OTHER_APP, (tx) => tx.enqueueCallback(theirs));
      const log = records.callbackLog;
      expect((await log.list()).map((d) => d.eventId)).toEqual([theirs.eventId, second.eventId, first.eventId]);
      expect((await log.list({ appKey: APP, limit: 1 })).map((d) => d.eventId)).toEqual([second.eventId]);
      expect((await log.list({ tradeNo: "20261122101530000A1" })).map((d) => d.eventId)).toEqual([first.eventId]);
      expect((await log.list({ applicationId: 910_000_000_201n }))[0]).toMatchObject({ eventId: second.eventId, applicationId: 910_000_000_201n });
      expect(await log.get(first.eventId)).toMatchObject({ eventId: first.eventId, status: "pending", body: first.body });

      const claimed = await log.claim(first);
      expect(claimed).toMatchObject({ eventId: first.eventId, status: "pending" });
      const acknowledged: CallbackDelivery = {
        ...claimed!,
        status: "delivered",
        nextAttemptTime: null,
        attempts: [{ attempt: 1, time: NOW, durationMs: 3, httpStatus: 200, error: null, responseBody: null, acknowledged: true, trigger: "scheduled", headers: { "X-Nonce": "n" } }],
      };
      await log.save(acknowledged);
      expect(await log.get(first.eventId)).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200, headers: { "X-Nonce": "n" } }] });
      expect(await log.list({ status: "delivered" })).toHaveLength(1);
      // A delivered event is no longer claimed; reopened (a resend by hand), it is again.
      expect(await log.claim(first)).toBeUndefined();
      expect(await log.reopen(first.eventId)).toBeUndefined();
      expect(await log.claim(first)).toMatchObject({ eventId: first.eventId, status: "pending" });
      expect(await log.reopen("evt_none")).toMatch(/no callback event/);
    }));
  });
}
