// Payment trades (DESIGN items 3, 7, 9): WAIT_BUYER_PAY → SUCCESS | CLOSED, SUCCESS → REFUND.
// Expiry is evaluated lazily on every access (and by the clock-advance control call).
// Creation is idempotent on (app, outTradeNo); the check and the insert run synchronously, with
// no await between them, so concurrent requests with one outTradeNo make one trade.
import { formatPlatformTime, platformDigits } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, OrderRecord, TradeRecord } from "../store/types.js";
import { requireMerchant } from "./access.js";
import { moveOrder, ORDER_STATUS } from "./order-status.js";

export function cashierUrl(ctx: SandboxContext, tradeNo: string, requestOrigin: string): string {
  return `${ctx.publicBaseUrl(requestOrigin)}/cashier/${tradeNo}?key=${ctx.cashierKeys.keyFor(tradeNo)}`;
}

/** yyyyMMddHHmmss (platform time) + a 5-digit sequence: 19 digits, unique in this sandbox. */
function newTradeNo(ctx: SandboxContext): string {
  for (;;) {
    const tradeNo = `${platformDigits(ctx.clock.now())}${String(ctx.records.nextSequence("trade") % 100_000).padStart(5, "0")}`;
    if (!ctx.records.trade(tradeNo)) return tradeNo;
  }
}

/** Closes the trade if its expiry has passed on the sandbox clock. */
export function refreshTrade(ctx: SandboxContext, trade: TradeRecord): TradeRecord {
  if (trade.status === "WAIT_BUYER_PAY" && ctx.clock.now() >= trade.expireTime) {
    trade.status = "CLOSED";
    trade.closeTime = trade.expireTime;
    trade.closeReason = `expired after ${trade.expireMinutes} minutes`;
    ctx.records.saveTrade(trade);
  }
  return trade;
}

/** Closes every trade whose expiry has passed; answers how many. */
export function expireDueTrades(ctx: SandboxContext): number {
  let closed = 0;
  for (const trade of ctx.records.trades()) {
    if (trade.status === "WAIT_BUYER_PAY" && refreshTrade(ctx, trade).status === "CLOSED") closed += 1;
  }
  return closed;
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

function newTrade(ctx: SandboxContext, app: AppRecord, input: TradeInput, orderId: bigint | null): TradeRecord {
  const now = ctx.clock.now();
  return {
    tradeNo: newTradeNo(ctx),
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

export function createCashierSession(ctx: SandboxContext, app: AppRecord, input: TradeInput, requestOrigin: string) {
  requireMerchant(ctx, app, input.merchantId);
  const existing = ctx.records.tradeByOutTradeNo(app.appKey, input.outTradeNo);
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
    return { tradeNo: existing.tradeNo, cashierUrl: cashierUrl(ctx, existing.tradeNo, requestOrigin) };
  }
  const trade = newTrade(ctx, app, input, null);
  ctx.records.saveTrade(trade, { claimOutTradeNo: true });
  return { tradeNo: trade.tradeNo, cashierUrl: cashierUrl(ctx, trade.tradeNo, requestOrigin) };
}

/**
 * The merchant order number of an order's n-th payment trade (1-based): `ORDER-<orderId>` for
 * the first, `ORDER-<orderId>-<n>` for each one opened after the previous one closed, so every
 * trade has its own outTradeNo in the app's namespace (docs/decisions.md item 7).
 */
export function orderOutTradeNo(orderId: bigint, attempt: number): string {
  return attempt === 1 ? `ORDER-${orderId}` : `ORDER-${orderId}-${attempt}`;
}

/** payOrder's trade: the order's open trade if there is one, else a new one with the next outTradeNo, claimed like a cashier session's. */
export function openOrderTrade(ctx: SandboxContext, app: AppRecord, order: OrderRecord, input: Omit<TradeInput, "merchantId" | "outTradeNo" | "totalAmount" | "subject">): TradeRecord {
  for (const tradeNo of order.tradeNos) {
    const trade = ctx.records.trade(tradeNo);
    if (trade && refreshTrade(ctx, trade).status === "WAIT_BUYER_PAY") return trade;
  }
  const outTradeNo = orderOutTradeNo(order.id, order.tradeNos.length + 1);
  const taken = ctx.records.tradeByOutTradeNo(app.appKey, outTradeNo);
  if (taken) {
    throw signedError(
      "OUT_TRADE_NO_CONFLICT",
      `orderId ${order.id}: its payment would use outTradeNo ${outTradeNo}, which the app already used for createCashierSession (tradeNo ${taken.tradeNo}); ` +
        "outTradeNo is unique per app, so this order cannot be paid through payOrder. Cancel it and create a new order, and keep the ORDER- prefix out of your own outTradeNo values.",
    );
  }
  const trade = newTrade(ctx, app, { ...input, merchantId: order.merchantId, outTradeNo, totalAmount: order.totalAmount, subject: `Order ${order.id}` }, order.id);
  ctx.records.saveTrade(trade, { claimOutTradeNo: true });
  order.tradeNos.push(trade.tradeNo);
  ctx.records.saveOrder(order);
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

export function queryPayment(ctx: SandboxContext, app: AppRecord, tradeNo: string) {
  const trade = ctx.records.trade(tradeNo);
  if (!trade || trade.appKey !== app.appKey) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no payment trade with this tradeNo exists for the app.`);
  return tradeView(refreshTrade(ctx, trade));
}

/** A trade by tradeNo for the control API and the cashier page (any app), expiry applied. */
export function requireTrade(ctx: SandboxContext, tradeNo: string): TradeRecord {
  const trade = ctx.records.trade(tradeNo);
  if (!trade) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no such payment trade.`);
  return refreshTrade(ctx, trade);
}

function requirePayable(trade: TradeRecord): void {
  if (trade.status !== "WAIT_BUYER_PAY") {
    const why = trade.status === "CLOSED" && trade.closeReason ? `CLOSED (${trade.closeReason})` : trade.status;
    throw signedError("TRADE_NOT_PAYABLE", `tradeNo ${trade.tradeNo} is not waiting for payment: it is ${why}.`);
  }
}

/** The user pays: SUCCESS, the order (if any) becomes paid, and payment.succeeded goes to notifyUrl. */
export function payTrade(ctx: SandboxContext, tradeNo: string): { trade: TradeRecord; eventId: string } {
  const trade = requireTrade(ctx, tradeNo);
  requirePayable(trade);
  const now = ctx.clock.now();
  const app = ctx.records.app(trade.appKey);
  // Built and validated before anything changes: a payload bug leaves the trade unpaid.
  const callback = ctx.callbacks.prepare({
    type: "payment.succeeded",
    appKey: trade.appKey,
    secret: app?.appSecrets[0],
    targetUrl: trade.notifyUrl,
    createTime: now,
    tradeNo: trade.tradeNo,
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
  ctx.records.saveTrade(trade);
  const order = trade.orderId === null ? undefined : ctx.records.order(trade.orderId);
  if (order) {
    if (order.status === ORDER_STATUS.PENDING_PAYMENT) {
      moveOrder(order, ORDER_STATUS.PAID, now, `payment succeeded (trade ${trade.tradeNo})`);
      order.payTime = now;
      order.paidTradeNo = trade.tradeNo;
      ctx.records.saveOrder(order);
    } else {
      ctx.logger.warn("A trade of an order that is no longer pending was paid; the order is unchanged.", { tradeNo: trade.tradeNo, orderId: order.id, status: order.status });
    }
  }
  return { trade, eventId: ctx.callbacks.dispatch(callback).eventId };
}

/** Active close of a waiting trade. */
export function closeTrade(ctx: SandboxContext, tradeNo: string, reason: string): TradeRecord {
  const trade = requireTrade(ctx, tradeNo);
  requirePayable(trade);
  trade.status = "CLOSED";
  trade.closeTime = ctx.clock.now();
  trade.closeReason = reason;
  ctx.records.saveTrade(trade);
  return trade;
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
