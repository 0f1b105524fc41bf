// Payment trades (DESIGN items 3, 7, 9): WAIT_BUYER_PAY → SUCCESS | CLOSED, SUCCESS → REFUND;
// and, when a scenario asks for it (docs/scenarios.md), WAIT_BUYER_PAY → UNKNOWN → SUCCESS |
// CLOSED. Expiry and an UNKNOWN result becoming known are evaluated lazily on every access (and
// by the clock-advance control call, and a timer for the callback that follows).
// Creation is idempotent on (app, outTradeNo): the check and the insert run in one transaction
// of the app (the store runs those one at a time, across instances), and the store refuses a
// second trade with the same (app, outTradeNo) besides, so concurrent requests with one
// outTradeNo make one trade.
import { formatPlatformTime, platformDigits } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { RefusalError, signedError } from "../errors.js";
import type { AppRecord, OrderRecord, RecordsTransaction, TradeRecord } from "../store/types.js";
import { recordCallback, withAppTransaction, type Sent } from "./transactions.js";
import { requireMerchant } from "./access.js";
import { chooseOutcome, outcomeByAmount, type PaymentOutcome, type SettledStatus } from "../scenarios/outcomes.js";
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

async function closeNow(tx: RecordsTransaction, trade: TradeRecord, at: number, reason: string): Promise<void> {
  trade.status = "CLOSED";
  trade.closeTime = at;
  trade.closeReason = reason;
  trade.unknownUntil = null;
  trade.unknownThen = null;
  await tx.updateTrade(trade);
}

/** Whether the sandbox clock has made a change of the trade due (expiry, or an UNKNOWN result becoming known). */
function isDue(ctx: SandboxContext, trade: TradeRecord): boolean {
  const now = ctx.clock.now();
  return (trade.status === "WAIT_BUYER_PAY" && now >= trade.expireTime) || (trade.status === "UNKNOWN" && trade.unknownUntil !== null && now >= trade.unknownUntil);
}

/**
 * In the trade's app's transaction, applies what the sandbox clock has made due: a waiting
 * trade past its expiry closes ("expired"); an UNKNOWN trade whose result time has passed
 * becomes what it was told to, at that time ("settled", its callback recorded in `sent`).
 */
export async function settleDue(ctx: SandboxContext, tx: RecordsTransaction, sent: Sent, trade: TradeRecord): Promise<"expired" | "settled" | undefined> {
  if (!isDue(ctx, trade)) return undefined;
  if (trade.status === "WAIT_BUYER_PAY") {
    await closeNow(tx, trade, trade.expireTime, `expired after ${trade.expireMinutes} minutes`);
    return "expired";
  }
  const at = trade.unknownUntil!;
  if (trade.unknownThen === "CLOSED") await closeNow(tx, trade, at, "the payment's result was UNKNOWN, then it failed");
  else await settleSuccess(ctx, tx, sent, trade, at);
  return "settled";
}

/** The trade with what the clock made due applied (in its app's transaction, when anything is). */
export async function refreshTrade(ctx: SandboxContext, trade: TradeRecord): Promise<TradeRecord> {
  if (!isDue(ctx, trade)) return trade;
  return withAppTransaction(ctx, trade.appKey, async (tx, sent) => {
    const current = await tx.trade(trade.tradeNo);
    if (!current) return trade;
    await settleDue(ctx, tx, sent, current);
    return current;
  });
}

/** Closes every trade whose expiry has passed (answers how many this call closed) and settles the UNKNOWN ones that are due. */
export async function expireDueTrades(ctx: SandboxContext): Promise<number> {
  let closed = 0;
  for (;;) {
    const due = await ctx.records.dueTrades(ctx.clock.now(), 500);
    let changed = 0;
    for (const trade of due) {
      const change = await withAppTransaction(ctx, trade.appKey, async (tx, sent) => {
        const current = await tx.trade(trade.tradeNo);
        return current === undefined ? undefined : settleDue(ctx, tx, sent, current);
      });
      if (change !== undefined) changed += 1;
      if (change === "expired") closed += 1;
    }
    if (due.length < 500 || changed === 0) return closed;
  }
}

/**
 * A timer for the moment an UNKNOWN trade's result becomes known, so that its callback goes out
 * even if nothing reads the trade. The sandbox clock may be moved meanwhile (advanceClock
 * settles what it makes due), so the timer checks and, if still early, waits again. (With
 * records shared by several instances, each instance also settles what is due now and then,
 * so a trade whose instance stopped is settled too.)
 */
function scheduleSettling(ctx: SandboxContext, trade: TradeRecord): void {
  if (trade.unknownUntil === null) return;
  ctx.scenarios.later(Math.max(0, trade.unknownUntil - ctx.clock.now()), () => {
    void (async () => {
      const current = await ctx.records.trade(trade.tradeNo);
      // A reset dropped it (a new trade may even have its number), or it was settled: nothing to do.
      if (!current || current.createTime !== trade.createTime || current.status !== "UNKNOWN") return;
      const settled = await refreshTrade(ctx, current);
      if (settled.status === "UNKNOWN") scheduleSettling(ctx, settled);
    })().catch((error: unknown) => ctx.logger.error("An UNKNOWN trade could not be settled. This is a sandbox bug.", { tradeNo: trade.tradeNo, error }));
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

/**
 * payOrder's trade (in the app's transaction): the order's open trade if there is one (waiting
 * for payment, or paid with a result still UNKNOWN: a second trade could be paid twice), else a
 * new one with the next outTradeNo, claimed like a cashier session's.
 */
export async function openOrderTrade(
  ctx: SandboxContext,
  tx: RecordsTransaction,
  sent: Sent,
  app: AppRecord,
  order: OrderRecord,
  input: Omit<TradeInput, "merchantId" | "outTradeNo" | "totalAmount" | "subject">,
): Promise<TradeRecord> {
  for (const tradeNo of order.tradeNos) {
    const trade = await tx.trade(tradeNo);
    if (!trade) continue;
    await settleDue(ctx, tx, sent, trade);
    if (trade.status === "WAIT_BUYER_PAY" || trade.status === "UNKNOWN") return trade;
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
 * Runs `change` on the trade in its app's transaction, what the clock made due applied first. A
 * refusal the change throws is answered after the transaction commits, so what was due is kept.
 */
async function changeTrade<T>(ctx: SandboxContext, tradeNo: string, change: (tx: RecordsTransaction, sent: Sent, trade: TradeRecord) => Promise<T>): Promise<T> {
  const found = await ctx.records.trade(tradeNo);
  if (!found) throw signedError("TRADE_NOT_FOUND", `tradeNo ${tradeNo}: no such payment trade.`);
  const outcome = await withAppTransaction(ctx, found.appKey, async (tx, sent) => {
    const trade = (await tx.trade(tradeNo)) ?? found;
    await settleDue(ctx, tx, sent, trade);
    try {
      return { done: await change(tx, sent, trade) };
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

/** SUCCESS at `at`: the order (if any) becomes paid, and payment.succeeded is recorded for notifyUrl; answers the event id. */
async function settleSuccess(ctx: SandboxContext, tx: RecordsTransaction, sent: Sent, trade: TradeRecord, at: number): Promise<string> {
  // Built and validated before anything changes: a payload bug leaves the trade unpaid.
  const callback = ctx.callbacks.prepare({
    type: "payment.succeeded",
    appKey: trade.appKey,
    targetUrl: trade.notifyUrl,
    createTime: at,
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
  await tx.updateTrade(trade);
  const order = trade.orderId === null ? undefined : await tx.order(trade.orderId);
  if (order) {
    if (order.status === ORDER_STATUS.PENDING_PAYMENT) {
      moveOrder(order, ORDER_STATUS.PAID, at, `payment succeeded (trade ${trade.tradeNo})`);
      order.payTime = at;
      order.paidTradeNo = trade.tradeNo;
      await tx.updateOrder(order);
    } else {
      ctx.logger.warn("A trade of an order that is no longer pending was paid; the order is unchanged.", { tradeNo: trade.tradeNo, orderId: order.id, status: order.status });
    }
  }
  await recordCallback(tx, sent, callback);
  return callback.event.eventId;
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
export async function payTrade(ctx: SandboxContext, tradeNo: string, asked: PaymentRequest = {}): Promise<PaymentResult> {
  const result = await changeTrade(ctx, tradeNo, (tx, sent, trade) => payInTransaction(ctx, tx, sent, trade, asked));
  if (result.outcome.kind === "unknown") scheduleSettling(ctx, result.trade);
  return result;
}

async function payInTransaction(ctx: SandboxContext, tx: RecordsTransaction, sent: Sent, trade: TradeRecord, asked: PaymentRequest): Promise<PaymentResult> {
  const now = ctx.clock.now();
  if (trade.status === "UNKNOWN") {
    if (asked.outcome === "unknown") {
      const when = trade.unknownUntil === null ? "only when settled by hand" : `at ${formatPlatformTime(trade.unknownUntil)}`;
      throw signedError("TRADE_NOT_PAYABLE", `tradeNo ${trade.tradeNo} is already UNKNOWN (its result becomes known ${when}); pay it with outcome success, or close it, to settle it now.`);
    }
    return { trade, eventId: await settleSuccess(ctx, tx, sent, trade, now), outcome: { kind: "success" }, byAmount: false };
  }
  requirePayable(trade);
  const outcome = chooseOutcome(trade.totalAmount, asked);
  const byAmount = asked.outcome === undefined && outcomeByAmount(trade.totalAmount) !== undefined;
  switch (outcome.kind) {
    case "success":
      return { trade, eventId: await settleSuccess(ctx, tx, sent, trade, now), outcome, byAmount };
    case "closed-by-buyer":
      await closeNow(tx, trade, now, "closed by the buyer instead of paying (sandbox test amount)");
      return { trade, eventId: null, outcome, byAmount };
    case "unknown":
      trade.status = "UNKNOWN";
      trade.unknownUntil = outcome.forSeconds === null ? null : now + outcome.forSeconds * 1000;
      trade.unknownThen = outcome.then;
      await tx.updateTrade(trade);
      return { trade, eventId: null, outcome, byAmount };
  }
}

/** Active close of a waiting trade, or of an UNKNOWN one (its result settled as a failure now). */
export async function closeTrade(ctx: SandboxContext, tradeNo: string, reason: string): Promise<TradeRecord> {
  return changeTrade(ctx, tradeNo, async (tx, _sent, trade) => {
    if (trade.status !== "UNKNOWN") requirePayable(trade);
    await closeNow(tx, trade, ctx.clock.now(), reason);
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
