// Customers, orders and payments: ten of the eighteen signed operations, and what the test
// hooks do (the user pays a trade). The kit has already checked the signature, validated the
// request against the spec (defaults filled in, int64 ids exact) and will validate the answer;
// these handlers keep the business rules of the contract (DESIGN items 2, 3 and 7).
import type { CallbackSender, ControlHandlers, SignedHandlers } from "merchant-open-platform/server";
import { signedError } from "merchant-open-platform/server";
import { TWO_POW_53, time, timeOrNull, type App, type Order, type OrderStatus, type Platform, type Refund, type Trade } from "./platform.ts";

const MAX_TOTAL = 2_147_483_647n;
const INT64_MAX = 9_223_372_036_854_775_807n;
const SERVICE_ORDER_TYPE = 3;

/** 0 → 1 paid, 0 → 4 cancelled, 1 → 2 service starts, 1 | 2 → 3 write-off, 1 → 5 refund. */
const MOVES: Record<OrderStatus, readonly OrderStatus[]> = { 0: [1, 4], 1: [2, 3, 5], 2: [3], 3: [], 4: [], 5: [] };

function move(order: Order, to: OrderStatus, at: number, reason: string): void {
  if (!MOVES[order.status].includes(to)) throw new Error(`order ${order.id}: ${order.status} → ${to} is not a move of the state machine`);
  order.history.push({ fromStatus: order.status, toStatus: to, changeTime: at, reason });
  order.status = to;
}

const orderView = (order: Order) => ({
  id: order.id,
  merchantId: order.merchantId,
  storeId: order.storeId,
  totalAmount: order.totalAmount,
  status: order.status,
  items: order.items.map(({ itemType, itemId, itemName, price, quantity }) => ({ itemType, itemId, itemName, price, quantity })),
  remark: order.remark,
  createTime: time(order.createTime),
  payTime: timeOrNull(order.payTime),
  completeTime: timeOrNull(order.completeTime),
});

const tradeView = (trade: Trade) => ({
  tradeNo: trade.tradeNo,
  outTradeNo: trade.outTradeNo,
  tradeStatus: trade.status,
  totalAmount: trade.totalAmount,
  payTime: trade.status === "SUCCESS" ? timeOrNull(trade.payTime) : null,
  attach: trade.attach,
});

const refundView = ({ appKey: _appKey, createTime, ...refund }: Refund) => ({ ...refund, status: "SUCCESS" as const, createTime: time(createTime) });

/** The trade as the control API (test hooks) shows it. */
export const controlTradeView = (trade: Trade) => ({
  tradeNo: trade.tradeNo,
  outTradeNo: trade.outTradeNo,
  merchantId: trade.merchantId,
  orderId: trade.orderId,
  tradeStatus: trade.status,
  totalAmount: trade.totalAmount,
  subject: trade.subject,
  createTime: time(trade.createTime),
  expireTime: time(trade.expireTime),
  payTime: timeOrNull(trade.payTime),
  closeReason: trade.closeReason,
  attach: trade.attach,
});

type TradeInput = Pick<Trade, "merchantId" | "outTradeNo" | "totalAmount" | "subject" | "notifyUrl" | "expireMinutes"> & { body?: string; returnUrl?: string; attach?: string };

export type OrderOperations = Pick<
  SignedHandlers,
  "syncCustomer" | "createOrder" | "getOrder" | "listOrderStatusHistory" | "payOrder" | "cancelOrder" | "refundOrder" | "writeOffOrder" | "createCashierSession" | "queryPayment"
>;

export function orderOperations(platform: Platform): OrderOperations {
  const cashierUrl = (origin: string, tradeNo: string) => `${origin}/cashier/${tradeNo}`;

  /** The app's order of that merchant (the merchant checked first), or 300001: nothing about another app's order leaks. */
  function requireOrder(app: App, orderId: bigint, merchantId: bigint): Order {
    platform.requireMerchant(app, merchantId);
    const order = platform.orders.get(orderId);
    if (!order || order.merchantId !== merchantId || order.appKey !== app.appKey) throw signedError("ORDER_NOT_FOUND", `orderId ${orderId}: no such order of merchant ${merchantId}.`);
    return order;
  }

  /** A store given with an order or a write-off: of this merchant (200003) and open (200004). */
  function requireOpenStore(merchantId: bigint, storeId: bigint) {
    const store = platform.stores.get(storeId);
    if (!store || store.merchantId !== merchantId) throw signedError("STORE_NOT_FOUND", `storeId ${storeId}: no such store of merchant ${merchantId}.`);
    if (store.status !== 0) throw signedError("STORE_DISABLED", `storeId ${storeId}: the store is disabled.`);
  }

  function newTrade(app: App, input: TradeInput, orderId: bigint | null): Trade {
    const now = platform.now();
    const trade: Trade = {
      tradeNo: platform.nextNumber("trade"),
      appKey: app.appKey,
      merchantId: input.merchantId,
      outTradeNo: input.outTradeNo,
      totalAmount: input.totalAmount,
      subject: input.subject,
      body: input.body ?? null,
      notifyUrl: input.notifyUrl,
      returnUrl: input.returnUrl ?? null,
      expireMinutes: input.expireMinutes,
      attach: input.attach ?? null,
      status: "WAIT_BUYER_PAY",
      createTime: now,
      expireTime: now + input.expireMinutes * 60_000,
      payTime: null,
      closeReason: null,
      orderId,
    };
    // Claimed in the same turn as the check that it was free: concurrent duplicates make one trade.
    platform.trades.set(trade.tradeNo, trade);
    platform.outTradeNos.set(`${app.appKey}:${trade.outTradeNo}`, trade.tradeNo);
    return trade;
  }

  return {
    syncCustomer: ({ appKey, body }) => {
      const key = `${appKey}:${body.openUserId}`;
      const existing = platform.customers.get(key);
      if (existing !== undefined) return { appUserId: existing, openUserId: body.openUserId, created: false };
      const appUserId = platform.nextId("appUser", TWO_POW_53 + 1n);
      platform.customers.set(key, appUserId);
      platform.customerApps.set(appUserId, appKey);
      return { appUserId, openUserId: body.openUserId, created: true };
    },

    createOrder: ({ appKey, body, refuse }) => {
      const app = platform.app(appKey);
      const tooLarge = [...(body.voucherIds ?? "").matchAll(/[0-9]+/g)].find((digits) => BigInt(digits[0]) > INT64_MAX);
      if (tooLarge) return refuse("VALIDATION_FAILED", `body.voucherIds: ${tooLarge[0]} is beyond the int64 maximum.`);
      const merchantId = BigInt(body.merchantId);
      platform.requireMerchant(app, merchantId);
      if (body.storeId !== undefined) requireOpenStore(merchantId, BigInt(body.storeId));
      platform.requireCustomer(app, BigInt(body.userId), "userId");
      const total = body.items.reduce((sum, item) => sum + BigInt(item.price) * BigInt(item.quantity), 0n);
      if (total > MAX_TOTAL) return refuse("ORDER_AMOUNT_OUT_OF_RANGE", `items: the order total is ${total} fen, more than ${MAX_TOTAL}.`);
      const now = platform.now();
      const order: Order = {
        id: platform.nextId("order", TWO_POW_53 + 1n),
        appKey,
        merchantId,
        storeId: body.storeId === undefined ? null : BigInt(body.storeId),
        userId: BigInt(body.userId),
        orderType: body.orderType,
        remark: body.remark ?? null,
        items: body.items.map((item) => ({ itemType: item.itemType, itemId: BigInt(item.itemId), itemName: item.itemName, price: item.price, quantity: item.quantity })),
        totalAmount: Number(total),
        status: 0,
        createTime: now,
        payTime: null,
        completeTime: null,
        history: [{ fromStatus: null, toStatus: 0, changeTime: now, reason: "created" }],
        tradeNos: [],
        paidTradeNo: null,
      };
      platform.orders.set(order.id, order);
      return order.id;
    },

    getOrder: ({ appKey, path, query }) => orderView(requireOrder(platform.app(appKey), path.orderId, query.merchantId)),

    listOrderStatusHistory: ({ appKey, path, query }) =>
      requireOrder(platform.app(appKey), path.orderId, query.merchantId).history.map((change) => ({ orderId: path.orderId, ...change, changeTime: time(change.changeTime) })),

    payOrder: ({ appKey, path, body, origin, refuse }) => {
      const app = platform.app(appKey);
      const order = requireOrder(app, path.orderId, BigInt(body.merchantId));
      if (order.status !== 0) return refuse("ORDER_NOT_PENDING_PAYMENT", `orderId ${order.id} is in status ${order.status}; payment may be started only in status 0.`);
      if (order.totalAmount === 0) return refuse("ORDER_ZERO_AMOUNT", `orderId ${order.id} has totalAmount 0; a trade needs at least 1 fen (cancel the order instead).`);
      // The open trade again, else a new one: ORDER-<id>, then ORDER-<id>-2 … after a trade closed.
      let trade = order.tradeNos.map((tradeNo) => platform.refresh(platform.trades.get(tradeNo)!)).find((t) => t.status === "WAIT_BUYER_PAY");
      if (!trade) {
        const outTradeNo = order.tradeNos.length === 0 ? `ORDER-${order.id}` : `ORDER-${order.id}-${order.tradeNos.length + 1}`;
        if (platform.outTradeNos.has(`${appKey}:${outTradeNo}`)) return refuse("OUT_TRADE_NO_CONFLICT", `outTradeNo ${outTradeNo} was already used by the app for a cashier session; this order cannot be paid through payOrder.`);
        const { merchantId: _merchantId, ...rest } = body;
        trade = newTrade(app, { ...rest, merchantId: order.merchantId, outTradeNo, totalAmount: order.totalAmount, subject: `Order ${order.id}` }, order.id);
        order.tradeNos.push(trade.tradeNo);
      }
      return { orderId: order.id, tradeNo: trade.tradeNo, outTradeNo: trade.outTradeNo, cashierUrl: cashierUrl(origin, trade.tradeNo) };
    },

    cancelOrder: ({ appKey, path, body, refuse }) => {
      const order = requireOrder(platform.app(appKey), path.orderId, BigInt(body.merchantId));
      if (order.status !== 0) return refuse("ORDER_NOT_CANCELLABLE", `orderId ${order.id} is in status ${order.status}; only a pending order (0) can be cancelled.`);
      const now = platform.now();
      for (const tradeNo of order.tradeNos) {
        const trade = platform.refresh(platform.trades.get(tradeNo)!);
        if (trade.status === "WAIT_BUYER_PAY") Object.assign(trade, { status: "CLOSED", closeReason: "order cancelled" });
      }
      move(order, 4, now, body.reason ? `cancelled: ${body.reason}` : "cancelled");
      return orderView(order);
    },

    refundOrder: ({ appKey, path, query, body, refuse }) => {
      const app = platform.app(appKey);
      const order = requireOrder(app, path.orderId, query.merchantId);
      // outRefundNo is the refund's idempotency key for the app: checked before the order's status
      // (the order of a repeated refund is refunded already).
      const existingNo = body.outRefundNo === undefined ? undefined : platform.outRefundNos.get(`${appKey}:${body.outRefundNo}`);
      const existing = existingNo === undefined ? undefined : platform.refunds.get(existingNo);
      if (existing) {
        const differing = (["orderId", "merchantId", "reason"] as const).filter((field) => existing[field] !== { orderId: order.id, merchantId: query.merchantId, reason: body.reason }[field]);
        if (differing.length > 0) return refuse("OUT_REFUND_NO_CONFLICT", `outRefundNo ${body.outRefundNo} was already used with different parameters (${differing.join(", ")}).`);
        return refundView(existing);
      }
      if (order.status !== 1) return refuse("ORDER_NOT_REFUNDABLE", `orderId ${order.id} is in status ${order.status}; a refund applies only to a paid order (1).`);
      const now = platform.now();
      const trade = order.paidTradeNo === null ? undefined : platform.trades.get(order.paidTradeNo);
      if (trade?.status === "SUCCESS") trade.status = "REFUND";
      move(order, 5, now, `refunded: ${body.reason}`);
      const refund: Refund = { refundNo: platform.nextNumber("refund"), appKey, orderId: order.id, merchantId: order.merchantId, refundAmount: order.totalAmount, reason: body.reason, outRefundNo: body.outRefundNo ?? null, createTime: now };
      platform.refunds.set(refund.refundNo, refund);
      if (body.outRefundNo !== undefined) platform.outRefundNos.set(`${appKey}:${body.outRefundNo}`, refund.refundNo);
      return refundView(refund);
    },

    writeOffOrder: ({ appKey, path, query, body, refuse }) => {
      const order = requireOrder(platform.app(appKey), path.orderId, query.merchantId);
      if (order.orderType !== SERVICE_ORDER_TYPE) return refuse("ORDER_NOT_SERVICE_TYPE", `orderId ${order.id} has orderType ${order.orderType}; write-off applies only to service-type orders (3).`);
      if (order.status !== 1 && order.status !== 2) return refuse("ORDER_NOT_WRITE_OFFABLE", `orderId ${order.id} is in status ${order.status}; a service-type order is written off in status 1 or 2.`);
      if (body?.storeId !== undefined) requireOpenStore(order.merchantId, BigInt(body.storeId));
      const now = platform.now();
      move(order, 3, now, `written off${body?.remark ? `: ${body.remark}` : ""}`);
      order.completeTime = now;
      return orderView(order);
    },

    createCashierSession: ({ appKey, body, origin, refuse }) => {
      const app = platform.app(appKey);
      const merchantId = BigInt(body.merchantId);
      platform.requireMerchant(app, merchantId);
      const taken = platform.outTradeNos.get(`${appKey}:${body.outTradeNo}`);
      if (taken !== undefined) {
        const trade = platform.trades.get(taken)!;
        if (trade.orderId !== null) return refuse("OUT_TRADE_NO_CONFLICT", `outTradeNo ${body.outTradeNo} is the payment of order ${trade.orderId} (payOrder); choose another.`);
        // The same parameters after defaults (no expireMinutes equals 30) answer the original trade.
        const asked = { merchantId, totalAmount: body.totalAmount, subject: body.subject, body: body.body ?? null, notifyUrl: body.notifyUrl, returnUrl: body.returnUrl ?? null, expireMinutes: body.expireMinutes, attach: body.attach ?? null };
        const differing = (Object.keys(asked) as Array<keyof typeof asked>).filter((field) => trade[field] !== asked[field]);
        if (differing.length > 0) return refuse("OUT_TRADE_NO_CONFLICT", `outTradeNo ${body.outTradeNo} was already used with different parameters (${differing.join(", ")}).`);
        return { tradeNo: trade.tradeNo, cashierUrl: cashierUrl(origin, trade.tradeNo) };
      }
      const trade = newTrade(app, { ...body, merchantId }, null);
      return { tradeNo: trade.tradeNo, cashierUrl: cashierUrl(origin, trade.tradeNo) };
    },

    queryPayment: ({ appKey, query, refuse }) => {
      const trade = platform.trades.get(query.tradeNo);
      if (!trade || trade.appKey !== appKey) return refuse("TRADE_NOT_FOUND", `tradeNo ${query.tradeNo}: no payment trade with this tradeNo exists for the app.`);
      return tradeView(platform.refresh(trade));
    },
  };
}

/**
 * The test hook of a paid trade (what a cashier does when the user pays): SUCCESS, its order
 * paid, and payment.succeeded sent. The event is built before anything changes, so a payload
 * the spec refuses leaves the trade unpaid.
 */
export function payTradeHook(platform: Platform, callbacks: CallbackSender): ControlHandlers["payTrade"] {
  return async ({ path }) => {
    const trade = platform.trades.get(path.tradeNo);
    if (!trade) throw signedError("TRADE_NOT_FOUND", `tradeNo ${path.tradeNo}: no such payment trade.`);
    if (platform.refresh(trade).status !== "WAIT_BUYER_PAY") throw signedError("TRADE_NOT_PAYABLE", `tradeNo ${trade.tradeNo} is ${trade.status}, not waiting for payment.`);
    const now = platform.now();
    const event = callbacks.prepare({
      type: "payment.succeeded",
      appKey: trade.appKey,
      targetUrl: trade.notifyUrl,
      createTime: now,
      data: { tradeNo: trade.tradeNo, outTradeNo: trade.outTradeNo, merchantId: trade.merchantId, totalAmount: trade.totalAmount, tradeStatus: "SUCCESS", payTime: time(now), attach: trade.attach },
    });
    trade.status = "SUCCESS";
    trade.payTime = now;
    const order = trade.orderId === null ? undefined : platform.orders.get(trade.orderId);
    if (order?.status === 0) {
      move(order, 1, now, `payment succeeded (trade ${trade.tradeNo})`);
      order.payTime = now;
      order.paidTradeNo = trade.tradeNo;
    }
    const delivery = await callbacks.enqueue(event);
    return { trade: controlTradeView(trade), eventId: delivery.eventId };
  };
}
