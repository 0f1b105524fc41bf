// Orders: createOrder, getOrder, listOrderStatusHistory, payOrder, cancelOrder, refundOrder,
// writeOffOrder, and the control API's service start. Orders are found per app and merchant: an
// order of another merchant or app is 300001, so nothing about it leaks.
import { formatPlatformTime, platformDigits } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, OrderItemRecord, OrderRecord, RecordReads, RecordsTransaction, RefundRecord, StoreRecord, TradeRecord } from "../store/types.js";
import { requireMerchant } from "./access.js";
import { requireCustomer } from "./customers.js";
import { historyView, moveOrder, ORDER_STATUS, orderView, SERVICE_ORDER_TYPE } from "./order-status.js";
import { cashierUrl, openOrderTrade, settleDue } from "./payments.js";
import { withAppTransaction, type Sent } from "./transactions.js";
import { orderIdBase, roundedIdHint, roundedIdHintOf, TWO_POW_53 } from "./id-range.js";
import { parseIdText } from "../../json/index.js";

/**
 * Order ids are 2^53 + 1, 2^53 + 3, 2^53 + 5 …: above 2^53 a double holds only even integers,
 * so every order id is one a double cannot hold, and any client that rounds ids is caught.
 * With the safe id range they start at 2^52 + 1 instead (id-range.ts).
 */
export const ORDER_ID_BASE = TWO_POW_53;
const MAX_TOTAL = 2_147_483_647n;

export interface CreateOrderInput {
  merchantId: bigint;
  storeId?: bigint;
  userId: bigint;
  orderType: OrderRecord["orderType"];
  couponId?: bigint;
  voucherIds?: string;
  remark?: string;
  items: OrderItemRecord[];
}

/** The store given with an order or write-off: of this merchant (200003) and normal (200004). */
function requireOpenStore(ctx: SandboxContext, merchantId: bigint, storeId: bigint): StoreRecord {
  const store = ctx.records.store(storeId);
  if (!store || store.merchantId !== merchantId) {
    const hint = roundedIdHint(storeId, (id) => ctx.records.store(id)?.merchantId === merchantId);
    throw signedError("STORE_NOT_FOUND", `storeId ${storeId}: no such store of merchant ${merchantId}.${hint}`);
  }
  if (store.status !== 0) throw signedError("STORE_DISABLED", `storeId ${storeId}: the store is disabled (status 1).`);
  return store;
}

/**
 * voucherIds is a JSON array of ids carried as text; the spec's pattern allows 1 to 19 digits
 * each, and a "long" holds at most 9223372036854775807, which a pattern cannot say briefly.
 */
function checkVoucherIds(voucherIds: string | undefined): void {
  if (voucherIds === undefined) return;
  const problems = [...voucherIds.matchAll(/[0-9]+/g)].flatMap((match, index) => {
    const id = parseIdText(match[0]);
    return typeof id === "string" ? [`voucherIds[${index}] ${id}`] : [];
  });
  if (problems.length > 0) throw signedError("VALIDATION_FAILED", `body.${problems.join("; body.")}`);
}

export async function createOrder(ctx: SandboxContext, app: AppRecord, input: CreateOrderInput): Promise<bigint> {
  checkVoucherIds(input.voucherIds);
  requireMerchant(ctx, app, input.merchantId);
  if (input.storeId !== undefined) requireOpenStore(ctx, input.merchantId, input.storeId);
  await requireCustomer(ctx, ctx.records, app, input.userId, "userId");
  const total = input.items.reduce((sum, item) => sum + BigInt(item.price) * BigInt(item.quantity), 0n);
  if (total > MAX_TOTAL) {
    throw signedError("ORDER_AMOUNT_OUT_OF_RANGE", `items: the order total (sum of price × quantity) is ${total} fen, more than ${MAX_TOTAL}.`);
  }
  return ctx.records.transaction(app.appKey, async (tx) => {
    const order = newOrder(ctx, app, input, Number(total), await tx.nextSequence("order"));
    await tx.insertOrder(order);
    return order.id;
  });
}

function newOrder(ctx: SandboxContext, app: AppRecord, input: CreateOrderInput, totalAmount: number, sequence: number): OrderRecord {
  const now = ctx.clock.now();
  return {
    id: orderIdBase(ctx.idRange) + 2n * BigInt(sequence) - 1n,
    appKey: app.appKey,
    merchantId: input.merchantId,
    storeId: input.storeId ?? null,
    userId: input.userId,
    orderType: input.orderType,
    couponId: input.couponId ?? null,
    voucherIds: input.voucherIds ?? null,
    remark: input.remark ?? null,
    items: input.items,
    totalAmount,
    status: ORDER_STATUS.PENDING_PAYMENT,
    createTime: now,
    payTime: null,
    completeTime: null,
    history: [{ fromStatus: null, toStatus: ORDER_STATUS.PENDING_PAYMENT, changeTime: now, reason: "created" }],
    tradeNos: [],
    paidTradeNo: null,
  };
}

/** The app's order of that merchant (the merchant checked first), or 300001; read through `reads` (a transaction's, or the records'). */
async function requireOrder(ctx: SandboxContext, reads: RecordReads, app: AppRecord, orderId: bigint, merchantId: bigint): Promise<OrderRecord> {
  requireMerchant(ctx, app, merchantId);
  const order = await reads.order(orderId);
  if (!order || order.merchantId !== merchantId || order.appKey !== app.appKey) {
    const visible = async (id: bigint) => {
      const candidate = await reads.order(id);
      return candidate?.merchantId === merchantId && candidate.appKey === app.appKey;
    };
    throw signedError("ORDER_NOT_FOUND", `orderId ${orderId}: no such order of merchant ${merchantId}.${await roundedIdHintOf(orderId, visible)}`);
  }
  return order;
}

/** Runs `change` on the app's order in the app's transaction (callbacks it records go out once it commits). */
function changeOrder<T>(ctx: SandboxContext, app: AppRecord, orderId: bigint, merchantId: bigint, change: (tx: RecordsTransaction, order: OrderRecord, sent: Sent) => Promise<T>): Promise<T> {
  requireMerchant(ctx, app, merchantId);
  return withAppTransaction(ctx, app.appKey, async (tx, sent) => change(tx, await requireOrder(ctx, tx, app, orderId, merchantId), sent));
}

export async function getOrder(ctx: SandboxContext, app: AppRecord, orderId: bigint, merchantId: bigint) {
  return orderView(await requireOrder(ctx, ctx.records, app, orderId, merchantId));
}

export async function listOrderStatusHistory(ctx: SandboxContext, app: AppRecord, orderId: bigint, merchantId: bigint) {
  return historyView(await requireOrder(ctx, ctx.records, app, orderId, merchantId));
}

export interface PayOrderInput {
  merchantId: bigint;
  notifyUrl: string;
  returnUrl?: string;
  expireMinutes: number;
  attach?: string;
}

export async function payOrder(ctx: SandboxContext, app: AppRecord, orderId: bigint, input: PayOrderInput, requestOrigin: string) {
  const { order, trade } = await changeOrder(ctx, app, orderId, input.merchantId, async (tx, order, sent) => {
    const { merchantId: _merchantId, ...tradeInput } = input;
    return { order, trade: await openOrderTrade(ctx, tx, sent, app, requirePayableOrder(order), tradeInput) };
  });
  return { orderId: order.id, tradeNo: trade.tradeNo, outTradeNo: trade.outTradeNo, cashierUrl: cashierUrl(ctx, trade.tradeNo, requestOrigin) };
}

/** payOrder's preconditions: pending payment, and an amount a trade can carry. */
function requirePayableOrder(order: OrderRecord): OrderRecord {
  const orderId = order.id;
  if (order.status !== ORDER_STATUS.PENDING_PAYMENT) {
    throw signedError("ORDER_NOT_PENDING_PAYMENT", `orderId ${orderId} is in status ${order.status}; payment may be started only in status 0 (pending payment).`);
  }
  if (order.totalAmount === 0) {
    throw signedError("ORDER_ZERO_AMOUNT", `orderId ${orderId} has totalAmount 0; a payment trade needs at least 1 fen, so this order cannot be paid (cancel it instead).`);
  }
  return order;
}

export async function cancelOrder(ctx: SandboxContext, app: AppRecord, orderId: bigint, input: { merchantId: bigint; reason?: string }) {
  const order = await changeOrder(ctx, app, orderId, input.merchantId, async (tx, found, sent) => {
    // What the clock made due first: an UNKNOWN trade that became SUCCESS has paid the order.
    const trades: TradeRecord[] = [];
    for (const tradeNo of found.tradeNos) {
      const trade = await tx.trade(tradeNo);
      if (!trade) continue;
      await settleDue(ctx, tx, sent, trade);
      trades.push(trade);
    }
    const order = (await tx.order(found.id)) ?? found;
    if (order.status !== ORDER_STATUS.PENDING_PAYMENT) {
      throw signedError("ORDER_NOT_CANCELLABLE", `orderId ${orderId} is in status ${order.status}; only an order in status 0 (pending payment) can be cancelled.`);
    }
    const now = ctx.clock.now();
    for (const trade of trades.filter((candidate) => candidate.status === "WAIT_BUYER_PAY")) {
      trade.status = "CLOSED";
      trade.closeTime = now;
      trade.closeReason = "order cancelled";
      await tx.updateTrade(trade);
    }
    moveOrder(order, ORDER_STATUS.CANCELLED, now, input.reason ? `cancelled: ${input.reason}` : "cancelled");
    await tx.updateOrder(order);
    return order;
  });
  return orderView(order);
}

/** The refund's answer; a repeated outRefundNo answers the same record again. */
function refundView(refund: RefundRecord) {
  const { appKey: _appKey, createTime, ...view } = refund;
  return { ...view, status: "SUCCESS" as const, createTime: formatPlatformTime(createTime) };
}

/**
 * outRefundNo is the refund's idempotency key, scoped to the app like outTradeNo (DESIGN item 7):
 * the same parameters answer the original refund, different ones are 400004. "Same" compares
 * the order, the merchant and the reason.
 */
async function repeatedRefund(tx: RecordsTransaction, app: AppRecord, orderId: bigint, merchantId: bigint, input: { reason: string; outRefundNo?: string }): Promise<RefundRecord | undefined> {
  if (input.outRefundNo === undefined) return undefined;
  const existing = await tx.refundByOutRefundNo(app.appKey, input.outRefundNo);
  if (!existing) return undefined;
  const pairs: [string, unknown, unknown][] = [
    ["orderId", existing.orderId, orderId],
    ["merchantId", existing.merchantId, merchantId],
    ["reason", existing.reason, input.reason],
  ];
  const differing = pairs.filter(([, a, b]) => a !== b).map(([name]) => name);
  if (differing.length > 0) {
    throw signedError("OUT_REFUND_NO_CONFLICT", `outRefundNo ${JSON.stringify(input.outRefundNo)} was already used with different parameters (${differing.join(", ")}); repeat the original parameters to get the original refund.`);
  }
  return existing;
}

export async function refundOrder(ctx: SandboxContext, app: AppRecord, orderId: bigint, merchantId: bigint, input: { reason: string; outRefundNo?: string }) {
  return changeOrder(ctx, app, orderId, merchantId, (tx, order) => refundInTransaction(ctx, tx, app, order, input));
}

async function refundInTransaction(ctx: SandboxContext, tx: RecordsTransaction, app: AppRecord, order: OrderRecord, input: { reason: string; outRefundNo?: string }) {
  const orderId = order.id;
  // Checked before the order's status: the order of a repeated refund is already refunded (5).
  const repeated = await repeatedRefund(tx, app, orderId, order.merchantId, input);
  if (repeated) return refundView(repeated);
  if (order.status !== ORDER_STATUS.PAID) {
    throw signedError("ORDER_NOT_REFUNDABLE", `orderId ${orderId} is in status ${order.status}; a refund applies only to an order in status 1 (paid).`);
  }
  const now = ctx.clock.now();
  const trade = order.paidTradeNo === null ? undefined : await tx.trade(order.paidTradeNo);
  if (trade && trade.status === "SUCCESS") {
    trade.status = "REFUND";
    trade.refundTime = now;
    await tx.updateTrade(trade);
  }
  moveOrder(order, ORDER_STATUS.REFUNDED, now, `refunded: ${input.reason}`);
  await tx.updateOrder(order);
  const refund: RefundRecord = {
    refundNo: `${platformDigits(now)}${String((await tx.nextSequence("refund")) % 100_000).padStart(5, "0")}`,
    appKey: app.appKey,
    orderId: order.id,
    merchantId: order.merchantId,
    refundAmount: order.totalAmount,
    reason: input.reason,
    outRefundNo: input.outRefundNo ?? null,
    createTime: now,
  };
  await tx.insertRefund(refund);
  return refundView(refund);
}

export async function writeOffOrder(ctx: SandboxContext, app: AppRecord, orderId: bigint, merchantId: bigint, input: { storeId?: bigint; remark?: string }) {
  return changeOrder(ctx, app, orderId, merchantId, (tx, order) => writeOffInTransaction(ctx, tx, order, input));
}

async function writeOffInTransaction(ctx: SandboxContext, tx: RecordsTransaction, order: OrderRecord, input: { storeId?: bigint; remark?: string }) {
  const orderId = order.id;
  if (order.orderType !== SERVICE_ORDER_TYPE) {
    throw signedError("ORDER_NOT_SERVICE_TYPE", `orderId ${orderId} has orderType ${order.orderType}; write-off applies only to service-type orders (orderType 3, voucher purchase).`);
  }
  if (order.status !== ORDER_STATUS.PAID && order.status !== ORDER_STATUS.IN_SERVICE) {
    throw signedError("ORDER_NOT_WRITE_OFFABLE", `orderId ${orderId} is in status ${order.status}; a service-type order can be written off only in status 1 (paid) or 2 (in service).`);
  }
  if (input.storeId !== undefined) requireOpenStore(ctx, order.merchantId, input.storeId);
  const now = ctx.clock.now();
  const where = input.storeId === undefined ? "" : ` at store ${input.storeId}`;
  moveOrder(order, ORDER_STATUS.COMPLETED, now, `written off${where}${input.remark ? `: ${input.remark}` : ""}`);
  order.completeTime = now;
  await tx.updateOrder(order);
  return orderView(order);
}

/** Control API: a paid service-type order starts being served (1 → 2). */
export async function startOrderService(ctx: SandboxContext, orderId: bigint) {
  const found = await ctx.records.order(orderId);
  if (!found) throw signedError("ORDER_NOT_FOUND", `orderId ${orderId}: no such order.${await roundedIdHintOf(orderId, async (id) => (await ctx.records.order(id)) !== undefined)}`);
  return ctx.records.transaction(found.appKey, async (tx) => startServiceInTransaction(ctx, tx, (await tx.order(orderId)) ?? found));
}

async function startServiceInTransaction(ctx: SandboxContext, tx: RecordsTransaction, order: OrderRecord) {
  const orderId = order.id;
  if (order.orderType !== SERVICE_ORDER_TYPE) {
    throw signedError("ORDER_NOT_SERVICE_TYPE", `orderId ${orderId} has orderType ${order.orderType}; only service-type orders (orderType 3) are served.`);
  }
  if (order.status !== ORDER_STATUS.PAID) {
    throw signedError("ORDER_SERVICE_NOT_STARTABLE", `orderId ${orderId} is in status ${order.status}; service can start only for a paid (status 1) service-type order.`);
  }
  moveOrder(order, ORDER_STATUS.IN_SERVICE, ctx.clock.now(), "service started");
  await tx.updateOrder(order);
  return orderView(order);
}
