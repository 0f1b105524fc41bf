// Payment trades (DESIGN items 3, 7, 9): WAIT_BUYER_PAY → SUCCESS | CLOSED, SUCCESS → REFUND.
// Expiry is evaluated lazily on every access (and by the clock-advance control call).
// Creation is idempotent on (app, outTradeNo): the check and the insert run in one transaction
// of the app (the store runs those one at a time, across instances), and the store refuses a
// second trade with the same (app, outTradeNo) besides, so concurrent requests with one
// outTradeNo make one trade.
import { formatPlatformTime, platformDigits } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { RefusalError, signedError } from "../errors.js";
import type { AppRecord, OrderRecord, RecordsTransaction, TradeRecord } from "../store/types.js";
import { requireMerchant } from "./access.js";
import { moveOrder, ORDER_STATUS } from "./order-status.js";

export function cashierUrl(ctx: SandboxContext, tradeNo: string, requestOrigin: string): string {
  return `${ctx.publicBaseUrl(requestOrigin)}/cashier/${tradeNo}?key=${ctx.cashierKeys.keyFor(tradeNo)}`;
}

/** yyyyMMddHHmmss (platform time) + a 5-digit sequence: 19 digits, unique in this sandbox. */
async function newTradeNo(ctx: SandboxContext, tx: RecordsTransaction): Promise<string> {
  for (;;) {
    const tradeNo = `${platformDigits(ctx.clock.now())}${String((await tx.nextSequence("trade")) % 100_000).padStart(5, "0")}`;
    if (!(await tx.trade(tradeNo))) return tradeNo;
  }
}

function isExpired(ctx: SandboxContext, trade: TradeRecord): boolean {
  return trade.status === "WAIT_BUYER_PAY" && ctx.clock.now() >= trade.expireTime;
}

/** In the trade's app's transaction: closes the trade if its expiry has passed on the sandbox clock; answers whether it did. */
export async function expireInTransaction(ctx: SandboxContext, tx: RecordsTransaction, trade: TradeRecord): Promise<boolean> {
  if (!isExpired(ctx, trade)) return false;
  trade.status = "CLOSED";
  trade.closeTime = trade.expireTime;
  trade.closeReason = `expired after ${trade.expireMinutes} minutes`;
  await tx.updateTrade(trade);
  return true;
}

/** The trade with its expiry applied: closed in its app's transaction if its time has passed. */
export async function refreshTrade(ctx: SandboxContext, trade: TradeRecord): Promise<TradeRecord> {
  if (!isExpired(ctx, trade)) return trade;
  return ctx.records.transaction(trade.appKey, async (tx) => {
    const current = await tx.trade(trade.tradeNo);
    if (!current) return trade;
    await expireInTransaction(ctx, tx, current);
    return current;
  });
}

/** Closes every trade whose expiry has passed; answers how many this call closed. */
export async function expireDueTrades(ctx: SandboxContext): Promise<number> {
  let closed = 0;
  for (;;) {
    const due = await ctx.records.expiredWaitingTrades(ctx.clock.now(), 500);
    let closedNow = 0;
    for (const trade of due) {
      const done = await ctx.records.transaction(trade.appKey, async (tx) => {
        const current = await tx.trade(trade.tradeNo);
        return current !== undefined && (await expireInTransaction(ctx, tx, current));
      });
      if (done) closedNow += 1;
    }
    closed += closedNow;
    if (due.length < 500 || closedNow === 0) return closed;
  }
}

export interface TradeInput {
  merchantId: bigint;
  outTradeNo: string;
  totalAmount: number;
  subject: string;
  body?: string;
  notifyUrl: string;
  returnUrl?: string;
  expireMinutes: number;
  attach?: string;
}

async function newTrade(ctx: SandboxContext, tx: RecordsTransaction, app: AppRecord, input: TradeInput, orderId: bigint | null): Promise<TradeRecord> {
  const now = ctx.clock.now();
  return {
    tradeNo: await newTradeNo(ctx, tx),
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
    closeTime: null,
    closeReason: null,
    refundTime: null,
    orderId,
  };
}

/** The parameters that must match for a repeated outTradeNo to be the same request. */
function differingParameters(trade: TradeRecord, input: TradeInput): string[] {
  const pairs: [string, unknown, unknown][] = [
    ["merchantId", trade.merchantId, input.merchantId],
    ["totalAmount", trade.totalAmount, input.totalAmount],
    ["subject", trade.subject, input.subject],
    ["body", trade.body, input.body ?? null],
    ["notifyUrl", trade.notifyUrl, input.notifyUrl],
    ["returnUrl", trade.returnUrl, input.returnUrl ?? null],
    ["expireMinutes", trade.expireMinutes, input.expireMinutes],
    ["attach", trade.attach, input.attach ?? null],
  ];
  return pairs.filter(([, a, b]) => a !== b).map(([name]) => name);
}

export async function createCashierSession(ctx: SandboxContext, app: AppRecord, input: TradeInput, requestOrigin: string) {
  requireMerchant(ctx, app, input.merchantId);
  const tradeNo = await ctx.records.transaction(app.appKey, (tx) => claimCashierTrade(ctx, tx, app, input));
  return { tradeNo, cashierUrl: cashierUrl(ctx, tradeNo, requestOrigin) };
}

/** The trade of a cashier session: the one this outTradeNo already has (same parameters), else a new one. */
async function claimCashierTrade(ctx: SandboxContext, tx: RecordsTransaction, app: AppRecord, input: TradeInput): Promise<string> {
  const existing = await tx.tradeByOutTradeNo(app.appKey, input.outTradeNo);
  if (existing && existing.orderId !== null) {
    throw signedError(
      "OUT_TRADE_NO_CONFLICT",
      `outTradeNo ${JSON.stringify(input.outTradeNo)} is the merchant order number of order ${existing.orderId}'s payment (opened by payOrder, tradeNo ${existing.tradeNo}); ` +
        "outTradeNo is unique per app, so choose another one (keep the ORDER- prefix for payOrder).",
    );
  }
  if (existing) {
    const differing = differingParameters(existing, input);
    if (differing.length > 0) {
      throw signedError("OUT_TRADE_NO_CONFLICT", `outTradeNo ${JSON.stringify(input.outTradeNo)} was already used with different parameters (${differing.join(", ")}); repeat the original parameters to get the original trade.`);
    }
    return existing.tradeNo;
  }
  const trade = await newTrade(ctx, tx, app, input, null);
  await tx.insertTrade(trade);
  return trade.tradeNo;
}

/**
 * The merchant order number of an order's n-th payment trade (1-based): `ORDER-<orderId>` for
 * the first, `ORDER-<orderId>-<n>` for each one opened after the previous one closed, so every
 * trade has its own outTradeNo in the app's namespace (docs/decisions.md item 7).
 */
export function orderOutTradeNo(orderId: bigint, attempt: number): string {
  return attempt === 1 ? `ORDER-${orderId}` : `ORDER-${orderId}-${attempt}`;
}

/** payOrder's trade (in the app's transaction): the order's open trade if there is one, else a new one with the next outTradeNo, claimed like a cashier session's. */
export async function openOrderTrade(
  ctx: SandboxContext,
  tx: RecordsTransaction,
  app: AppRecord,
  order: OrderRecord,
  input: Omit<TradeInput, "merchantId" | "outTradeNo" | "totalAmount" | "subject">,
): Promise<TradeRecord> {
  for (const tradeNo of order.tradeNos) {
    const trade = await tx.trade(tradeNo);
    if (trade && !(await expireInTransaction(ctx, tx, trade)) && trade.status === "WAIT_BUYER_PAY") return trade;
  }
  const outTradeNo = orderOutTradeNo(order.id, order.tradeNos.length + 1);
  const taken = await tx.tradeByOutTradeNo(app.appKey, outTradeNo);
  if (taken) {
    throw signedError(
      "OUT_TRADE_NO_CONFLICT",
      `orderId ${order.id}: its payment would use outTradeNo ${outTradeNo}, which the app already used for createCashierSession (tradeNo ${taken.tradeNo}); ` +
        "outTradeNo is unique per app, so this order cannot be paid through payOrder. Cancel it and create a new order, and keep the ORDER- prefix out of your own outTradeNo values.",
    );
  }
  const trade = await newTrade(ctx, tx, app, { ...input, merchantId: order.merchantId, outTradeNo, totalAmount: order.totalAmount, subject: `Order ${order.id}` }, order.id);
  await tx.insertTrade(trade);
  order.tradeNos.push(trade.tradeNo);
  await tx.updateOrder(order);
  return trade;
}

export function tradeView(trade: TradeRecord) {
  return {
    tradeNo: trade.tradeNo,
    outTradeNo: trade.outTradeNo,
    tradeStatus: trade.status,
    totalAmount: trade.totalAmount,
    payTime: trade.status === "SUCCESS" && trade.payTime !== null ? formatPlatformTime(trade.payTime) : null,
    attach: trade.attach,
  };
}

export async function queryPayment(ctx: SandboxContext, app: AppRecord, tradeNo: string) {
  const trade = await ctx.records.trade(tradeNo);
  if (!trade || trade.appKey !== app.appKey) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no payment trade with this tradeNo exists for the app.`);
  return tradeView(await refreshTrade(ctx, trade));
}

/** A trade by tradeNo for the control API and the cashier page (any app), expiry applied. */
export async function requireTrade(ctx: SandboxContext, tradeNo: string): Promise<TradeRecord> {
  const trade = await ctx.records.trade(tradeNo);
  if (!trade) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no such payment trade.`);
  return refreshTrade(ctx, trade);
}

/**
 * Runs `change` on the trade in its app's transaction, its expiry applied first. A refusal the
 * change throws is answered after the transaction commits, so an expiry it found is kept.
 */
async function changeTrade<T>(ctx: SandboxContext, tradeNo: string, change: (tx: RecordsTransaction, trade: TradeRecord) => Promise<T>): Promise<T> {
  const found = await ctx.records.trade(tradeNo);
  if (!found) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no such payment trade.`);
  const outcome = await ctx.records.transaction(found.appKey, async (tx) => {
    const trade = (await tx.trade(tradeNo)) ?? found;
    await expireInTransaction(ctx, tx, trade);
    try {
      return { done: await change(tx, trade) };
    } catch (error) {
      if (error instanceof RefusalError) return { refused: error };
      throw error;
    }
  });
  if ("refused" in outcome) throw outcome.refused;
  return outcome.done;
}

function requirePayable(trade: TradeRecord): void {
  if (trade.status !== "WAIT_BUYER_PAY") {
    const why = trade.status === "CLOSED" && trade.closeReason ? `CLOSED (${trade.closeReason})` : trade.status;
    throw signedError("TRADE_NOT_PAYABLE", `tradeNo ${trade.tradeNo} is not waiting for payment: it is ${why}.`);
  }
}

/** The user pays: SUCCESS, the order (if any) becomes paid, and payment.succeeded goes to notifyUrl. */
export async function payTrade(ctx: SandboxContext, tradeNo: string): Promise<{ trade: TradeRecord; eventId: string }> {
  const { trade, callback } = await changeTrade(ctx, tradeNo, (tx, trade) => payInTransaction(ctx, tx, trade));
  // After the commit: the delivery was recorded with the payment, now the first attempt.
  await ctx.callbacks.dispatch(callback);
  return { trade, eventId: callback.event.eventId };
}

async function payInTransaction(ctx: SandboxContext, tx: RecordsTransaction, trade: TradeRecord) {
  requirePayable(trade);
  const now = ctx.clock.now();
  // Built and validated before anything changes: a payload bug leaves the trade unpaid.
  const callback = ctx.callbacks.prepare({
    type: "payment.succeeded",
    appKey: trade.appKey,
    targetUrl: trade.notifyUrl,
    createTime: now,
    data: {
      tradeNo: trade.tradeNo,
      outTradeNo: trade.outTradeNo,
      merchantId: trade.merchantId,
      totalAmount: trade.totalAmount,
      tradeStatus: "SUCCESS",
      payTime: formatPlatformTime(now),
      attach: trade.attach,
    },
  });
  trade.status = "SUCCESS";
  trade.payTime = now;
  await tx.updateTrade(trade);
  const order = trade.orderId === null ? undefined : await tx.order(trade.orderId);
  if (order) {
    if (order.status === ORDER_STATUS.PENDING_PAYMENT) {
      moveOrder(order, ORDER_STATUS.PAID, now, `payment succeeded (trade ${trade.tradeNo})`);
      order.payTime = now;
      order.paidTradeNo = trade.tradeNo;
      await tx.updateOrder(order);
    } else {
      ctx.logger.warn("A trade of an order that is no longer pending was paid; the order is unchanged.", { tradeNo: trade.tradeNo, orderId: order.id, status: order.status });
    }
  }
  await tx.enqueueCallback(callback.event);
  return { trade, callback };
}

/** Active close of a waiting trade. */
export async function closeTrade(ctx: SandboxContext, tradeNo: string, reason: string): Promise<TradeRecord> {
  return changeTrade(ctx, tradeNo, async (tx, trade) => {
    requirePayable(trade);
    trade.status = "CLOSED";
    trade.closeTime = ctx.clock.now();
    trade.closeReason = reason;
    await tx.updateTrade(trade);
    return trade;
  });
}

/** The control API's and cashier page's view of a trade. */
export function controlTradeView(trade: TradeRecord) {
  return {
    tradeNo: trade.tradeNo,
    outTradeNo: trade.outTradeNo,
    merchantId: trade.merchantId,
    orderId: trade.orderId,
    tradeStatus: trade.status,
    totalAmount: trade.totalAmount,
    subject: trade.subject,
    createTime: formatPlatformTime(trade.createTime),
    expireTime: formatPlatformTime(trade.expireTime),
    payTime: trade.payTime === null ? null : formatPlatformTime(trade.payTime),
    closeReason: trade.closeReason,
    attach: trade.attach,
  };
}
