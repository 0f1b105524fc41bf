// Payment trades (DESIGN items 3, 7, 9): WAIT_BUYER_PAY → SUCCESS | CLOSED, SUCCESS → REFUND;
// and, when a scenario asks for it (docs/scenarios.md), WAIT_BUYER_PAY → UNKNOWN → SUCCESS |
// CLOSED. Expiry and an UNKNOWN result becoming known are evaluated lazily on every access (and
// by the clock-advance control call, and a timer for the callback that follows).
// Creation is idempotent on (app, outTradeNo); the check and the insert run synchronously, with
// no await between them, so concurrent requests with one outTradeNo make one trade.
import { formatPlatformTime, platformDigits } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, OrderRecord, TradeRecord } from "../store/types.js";
import { requireMerchant } from "./access.js";
import { chooseOutcome, outcomeByAmount, type PaymentOutcome, type SettledStatus } from "../scenarios/outcomes.js";
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

function closeNow(ctx: SandboxContext, trade: TradeRecord, at: number, reason: string): void {
  trade.status = "CLOSED";
  trade.closeTime = at;
  trade.closeReason = reason;
  trade.unknownUntil = null;
  trade.unknownThen = null;
  ctx.records.saveTrade(trade);
}

/**
 * Applies what the sandbox clock has made due: a waiting trade past its expiry closes; an
 * UNKNOWN trade whose result time has passed becomes what it was told to (at that time).
 */
export function refreshTrade(ctx: SandboxContext, trade: TradeRecord): TradeRecord {
  if (trade.status === "WAIT_BUYER_PAY" && ctx.clock.now() >= trade.expireTime) {
    closeNow(ctx, trade, trade.expireTime, `expired after ${trade.expireMinutes} minutes`);
  } else if (trade.status === "UNKNOWN" && trade.unknownUntil !== null && ctx.clock.now() >= trade.unknownUntil) {
    const at = trade.unknownUntil;
    if (trade.unknownThen === "CLOSED") closeNow(ctx, trade, at, "the payment's result was UNKNOWN, then it failed");
    else settleSuccess(ctx, trade, at);
  }
  return trade;
}

/** Closes every trade whose expiry has passed (answers how many) and settles the UNKNOWN ones that are due. */
export function expireDueTrades(ctx: SandboxContext): number {
  let closed = 0;
  for (const trade of ctx.records.trades()) {
    if (trade.status === "WAIT_BUYER_PAY" && refreshTrade(ctx, trade).status === "CLOSED") closed += 1;
    else if (trade.status === "UNKNOWN") refreshTrade(ctx, trade);
  }
  return closed;
}

/**
 * A timer for the moment an UNKNOWN trade's result becomes known, so that its callback goes out
 * even if nothing reads the trade. The sandbox clock may be moved meanwhile (advanceClock
 * settles what it makes due), so the timer checks and, if still early, waits again.
 */
function scheduleSettling(ctx: SandboxContext, trade: TradeRecord): void {
  if (trade.unknownUntil === null) return;
  ctx.scenarios.later(Math.max(0, trade.unknownUntil - ctx.clock.now()), () => {
    // A reset dropped it (a new trade may even have its number): nothing to do.
    if (ctx.records.trade(trade.tradeNo) !== trade || trade.status !== "UNKNOWN") return;
    try {
      refreshTrade(ctx, trade);
    } catch (error) {
      ctx.logger.error("An UNKNOWN trade could not be settled. This is a sandbox bug.", { tradeNo: trade.tradeNo, error });
      return;
    }
    if (trade.status === "UNKNOWN") scheduleSettling(ctx, trade);
  });
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
    unknownUntil: null,
    unknownThen: null,
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

/**
 * payOrder's trade: the order's open trade if there is one (waiting for payment, or paid with a
 * result still UNKNOWN: a second trade could be paid twice), else a new one with the next
 * outTradeNo, claimed like a cashier session's.
 */
export function openOrderTrade(ctx: SandboxContext, app: AppRecord, order: OrderRecord, input: Omit<TradeInput, "merchantId" | "outTradeNo" | "totalAmount" | "subject">): TradeRecord {
  for (const tradeNo of order.tradeNos) {
    const trade = ctx.records.trade(tradeNo);
    const status = trade && refreshTrade(ctx, trade).status;
    if (trade && (status === "WAIT_BUYER_PAY" || status === "UNKNOWN")) return trade;
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

/** SUCCESS at `at`: the order (if any) becomes paid, and payment.succeeded goes to notifyUrl; answers the event id. */
function settleSuccess(ctx: SandboxContext, trade: TradeRecord, at: number): string {
  const app = ctx.records.app(trade.appKey);
  // Built and validated before anything changes: a payload bug leaves the trade unpaid.
  const callback = ctx.callbacks.prepare({
    type: "payment.succeeded",
    appKey: trade.appKey,
    secret: app?.appSecrets[0],
    targetUrl: trade.notifyUrl,
    createTime: at,
    tradeNo: trade.tradeNo,
    data: {
      tradeNo: trade.tradeNo,
      outTradeNo: trade.outTradeNo,
      merchantId: trade.merchantId,
      totalAmount: trade.totalAmount,
      tradeStatus: "SUCCESS",
      payTime: formatPlatformTime(at),
      attach: trade.attach,
    },
  });
  trade.status = "SUCCESS";
  trade.payTime = at;
  trade.unknownUntil = null;
  trade.unknownThen = null;
  ctx.records.saveTrade(trade);
  const order = trade.orderId === null ? undefined : ctx.records.order(trade.orderId);
  if (order) {
    if (order.status === ORDER_STATUS.PENDING_PAYMENT) {
      moveOrder(order, ORDER_STATUS.PAID, at, `payment succeeded (trade ${trade.tradeNo})`);
      order.payTime = at;
      order.paidTradeNo = trade.tradeNo;
      ctx.records.saveOrder(order);
    } else {
      ctx.logger.warn("A trade of an order that is no longer pending was paid; the order is unchanged.", { tradeNo: trade.tradeNo, orderId: order.id, status: order.status });
    }
  }
  return ctx.callbacks.dispatch(callback).eventId;
}

/** How a payment should end, as payTrade's body or the cashier page's button asks (docs/scenarios.md). */
export interface PaymentRequest {
  outcome?: "success" | "unknown";
  unknownForSeconds?: number;
  then?: SettledStatus;
}

export interface PaymentResult {
  trade: TradeRecord;
  /** The payment.succeeded event sent now; null when none was (UNKNOWN, or closed by the buyer). */
  eventId: string | null;
  outcome: PaymentOutcome;
  /** The trade's test amount chose the outcome (docs/scenarios.md). */
  byAmount: boolean;
}

/**
 * The user pays. By default the trade becomes SUCCESS (the order, if any, paid; the callback
 * sent); an outcome asked for, or the trade's test amount, can make its result UNKNOWN for a
 * while or have the buyer close it instead. An UNKNOWN trade paid again is settled now: SUCCESS.
 */
export function payTrade(ctx: SandboxContext, tradeNo: string, asked: PaymentRequest = {}): PaymentResult {
  const trade = requireTrade(ctx, tradeNo);
  const now = ctx.clock.now();
  if (trade.status === "UNKNOWN") {
    if (asked.outcome === "unknown") {
      const when = trade.unknownUntil === null ? "only when settled by hand" : `at ${formatPlatformTime(trade.unknownUntil)}`;
      throw signedError("TRADE_NOT_PAYABLE", `tradeNo ${trade.tradeNo} is already UNKNOWN (its result becomes known ${when}); pay it with outcome success, or close it, to settle it now.`);
    }
    return { trade, eventId: settleSuccess(ctx, trade, now), outcome: { kind: "success" }, byAmount: false };
  }
  requirePayable(trade);
  const outcome = chooseOutcome(trade.totalAmount, asked);
  const byAmount = asked.outcome === undefined && outcomeByAmount(trade.totalAmount) !== undefined;
  switch (outcome.kind) {
    case "success":
      return { trade, eventId: settleSuccess(ctx, trade, now), outcome, byAmount };
    case "closed-by-buyer":
      closeNow(ctx, trade, now, "closed by the buyer instead of paying (sandbox test amount)");
      return { trade, eventId: null, outcome, byAmount };
    case "unknown":
      trade.status = "UNKNOWN";
      trade.unknownUntil = outcome.forSeconds === null ? null : now + outcome.forSeconds * 1000;
      trade.unknownThen = outcome.then;
      ctx.records.saveTrade(trade);
      scheduleSettling(ctx, trade);
      return { trade, eventId: null, outcome, byAmount };
  }
}

/** Active close of a waiting trade, or of an UNKNOWN one (its result settled as a failure now). */
export function closeTrade(ctx: SandboxContext, tradeNo: string, reason: string): TradeRecord {
  const trade = requireTrade(ctx, tradeNo);
  if (trade.status !== "UNKNOWN") requirePayable(trade);
  closeNow(ctx, trade, ctx.clock.now(), reason);
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

/** The control API's view of how a payment ended (PaymentOutcome). */
export function paymentOutcomeView(result: PaymentResult) {
  const { trade, outcome, byAmount } = result;
  const unknown = outcome.kind === "unknown";
  return {
    kind: outcome.kind,
    byAmount,
    settlesAt: unknown && trade.unknownUntil !== null ? formatPlatformTime(trade.unknownUntil) : null,
    then: unknown ? outcome.then : null,
  };
}
