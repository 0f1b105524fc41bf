// The control API's operations (openapi/sandbox-control): the sandbox acting as the paying user,
// the merchant and time itself. No signature: it is a local developer tool (docs/sandbox.md).
import type { CallbackEvent } from "./callbacks/dispatcher.js";
import { formatPlatformTime } from "./clock.js";
import type { SandboxContext } from "./context.js";
import { approveApplication, rejectApplication } from "./domain/member-cards.js";
import { startOrderService } from "./domain/orders.js";
import { closeTrade, controlTradeView, expireDueTrades, payTrade } from "./domain/payments.js";
import type { OperationHandlers } from "../server/index.js";
import type { operations as ControlOperations } from "../../generated/sandbox-control.js";
import type { sandboxControlOperations } from "../../generated/sandbox-control.operations.js";

export function clockView(ctx: SandboxContext) {
  const now = ctx.clock.now();
  return { now: formatPlatformTime(now), epochMs: now, offsetSeconds: Math.floor(ctx.clock.offsetMs / 1000) };
}

/** Moves the clock; trades expire and due callback retries go out at once. */
export function advanceClock(ctx: SandboxContext, seconds: number) {
  ctx.clock.advance(seconds * 1000);
  const expiredTrades = expireDueTrades(ctx);
  ctx.callbacks.clockAdvanced();
  return { ...clockView(ctx), expiredTrades };
}

export function deliveryView(event: CallbackEvent) {
  return {
    eventId: event.eventId,
    type: event.type,
    appKey: event.appKey,
    targetUrl: event.targetUrl,
    tradeNo: event.tradeNo,
    applicationId: event.applicationId,
    status: event.status,
    createTime: formatPlatformTime(event.createTime),
    nextAttemptTime: event.nextAttemptTime === null ? null : formatPlatformTime(event.nextAttemptTime),
    failureReason: event.failureReason,
    body: event.body,
    attempts: event.attempts.map((attempt) => ({ ...attempt, time: formatPlatformTime(attempt.time) })),
  };
}

export interface DeliveryFilter {
  eventId?: string;
  tradeNo?: string;
  applicationId?: bigint;
  status?: CallbackEvent["status"];
}

export function listDeliveries(ctx: SandboxContext, filter: DeliveryFilter) {
  const list = ctx.callbacks
    .events()
    .filter((event) => filter.eventId === undefined || event.eventId === filter.eventId)
    .filter((event) => filter.tradeNo === undefined || event.tradeNo === filter.tradeNo)
    .filter((event) => filter.applicationId === undefined || event.applicationId === filter.applicationId)
    .filter((event) => filter.status === undefined || event.status === filter.status)
    .reverse()
    .map(deliveryView);
  return { list, total: list.length };
}

export function resetState(ctx: SandboxContext) {
  ctx.callbacks.reset();
  ctx.store.reset();
  return { merchants: ctx.store.merchants().length, stores: ctx.store.stores().length, cardTemplates: ctx.store.cardTemplates().length, apps: ctx.store.apps().length };
}

export function controlOperations(ctx: SandboxContext): OperationHandlers<ControlOperations, typeof sandboxControlOperations> {
  return {
    payTrade: (input) => {
      const { trade, eventId } = payTrade(ctx, input.path.tradeNo);
      return { trade: controlTradeView(trade), eventId };
    },
    closeTrade: (input) => controlTradeView(closeTrade(ctx, input.path.tradeNo, "closed by the control API")),
    startOrderService: (input) => startOrderService(ctx, input.path.orderId),
    approveCreditApplication: (input) => approveApplication(ctx, input.path.applicationId),
    rejectCreditApplication: (input) => rejectApplication(ctx, input.path.applicationId, input.body.reason),
    getClock: () => clockView(ctx),
    advanceClock: (input) => advanceClock(ctx, input.body.seconds),
    listCallbackDeliveries: (input) => listDeliveries(ctx, input.query),
    resetState: () => resetState(ctx),
  };
}
