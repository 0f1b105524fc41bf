// The control API's operations (openapi/sandbox-control): the sandbox acting as the paying user,
// the merchant and time itself. No signature: it is a local developer tool (docs/sandbox.md).
import type { CallbackDeliveryRecord } from "./callbacks/dispatcher.js";
import { formatPlatformTime } from "./clock.js";
import { maskHeader } from "./dashboard/masking.js";
import type { SandboxContext } from "./context.js";
import { signedError } from "./errors.js";
import { approveApplication, rejectApplication } from "./domain/member-cards.js";
import { startOrderService } from "./domain/orders.js";
import { closeTrade, controlTradeView, expireDueTrades, paymentOutcomeView, payTrade } from "./domain/payments.js";
import { createFault, deleteFault, listFaults } from "./faults/control.js";
import { redeliveryView, type RedeliveryRequest } from "./scenarios/redeliveries.js";
import type { OperationHandlers } from "../server/index.js";
import type { operations as ControlOperations } from "../../generated/sandbox-control.js";
import type { sandboxControlOperations } from "../../generated/sandbox-control.operations.js";

export function clockView(ctx: SandboxContext) {
  const now = ctx.clock.now();
  return { now: formatPlatformTime(now), epochMs: now, offsetSeconds: Math.floor(ctx.clock.offsetMs / 1000) };
}

/**
 * Back to real time. Nothing moves backwards with it: expired trades stay closed, and retries
 * due at a sandbox time still ahead wait until real time reaches it.
 */
export function resetClock(ctx: SandboxContext) {
  ctx.clock.resetOffset();
  return clockView(ctx);
}

/** Moves the clock; trades expire, UNKNOWN results become known, and due callback retries and redeliveries go out at once. */
export function advanceClock(ctx: SandboxContext, seconds: number) {
  ctx.clock.advance(seconds * 1000);
  const expiredTrades = expireDueTrades(ctx);
  ctx.callbacks.clockAdvanced();
  void ctx.scenarios.redeliveries.sendDue(ctx);
  return { ...clockView(ctx), expiredTrades };
}

export function deliveryView(event: CallbackDeliveryRecord) {
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
    attempts: event.attempts.map((attempt) => ({
      ...attempt,
      time: formatPlatformTime(attempt.time),
      headers: Object.fromEntries(Object.entries(attempt.headers).map(([name, value]) => [name, maskHeader(name, value)])),
    })),
  };
}

export interface DeliveryFilter {
  eventId?: string;
  tradeNo?: string;
  applicationId?: bigint;
  status?: CallbackDeliveryRecord["status"];
}

export function listDeliveries(ctx: SandboxContext, filter: DeliveryFilter) {
  const list = ctx.callbacks
    .events()
    .filter((event) => filter.eventId === undefined || event.eventId === filter.eventId)
    .filter((event) => filter.tradeNo === undefined || event.tradeNo === filter.tradeNo)
    .filter((event) => filter.applicationId === undefined || event.applicationId === filter.applicationId)
    .filter((event) => filter.status === undefined || event.status === filter.status)
    .reverse()
    .map((event) => ({ ...deliveryView(event), redeliveries: ctx.scenarios.redeliveries.of(event.eventId).map(redeliveryView) }));
  return { list, total: list.length };
}

export async function redeliverCallback(ctx: SandboxContext, eventId: string, request: RedeliveryRequest) {
  const event = ctx.callbacks.event(eventId);
  if (!event) throw signedError("CALLBACK_EVENT_NOT_FOUND", `eventId: the sandbox holds no callback event ${eventId} (a reset drops them); listCallbackDeliveries shows those there are.`);
  const made = await ctx.scenarios.redeliveries.redeliver(ctx, event, request);
  return { eventId, redeliveries: made.map(redeliveryView) };
}

export function resetState(ctx: SandboxContext) {
  ctx.callbacks.reset();
  ctx.records.reset();
  ctx.scenarios.reset();
  return {
    merchants: ctx.records.merchants().length,
    stores: ctx.records.stores().length,
    cardTemplates: ctx.records.cardTemplates().length,
    apps: ctx.records.apps().length,
    // The clock is not state: a reset keeps its offset, and says so.
    clockOffsetSeconds: clockView(ctx).offsetSeconds,
  };
}

export function controlOperations(ctx: SandboxContext): OperationHandlers<ControlOperations, typeof sandboxControlOperations> {
  return {
    payTrade: (input) => {
      const result = payTrade(ctx, input.path.tradeNo, input.body ?? {});
      return { trade: controlTradeView(result.trade), eventId: result.eventId, outcome: paymentOutcomeView(result) };
    },
    closeTrade: (input) => controlTradeView(closeTrade(ctx, input.path.tradeNo, "closed by the control API")),
    startOrderService: (input) => startOrderService(ctx, input.path.orderId),
    approveCreditApplication: (input) => approveApplication(ctx, input.path.applicationId),
    rejectCreditApplication: (input) => rejectApplication(ctx, input.path.applicationId, input.body.reason),
    getClock: () => clockView(ctx),
    advanceClock: (input) => advanceClock(ctx, input.body.seconds),
    resetClock: () => resetClock(ctx),
    listCallbackDeliveries: (input) => listDeliveries(ctx, input.query),
    redeliverCallback: (input) => redeliverCallback(ctx, input.path.eventId, input.body),
    createFault: (input) => createFault(ctx, input.body),
    listFaults: (input) => listFaults(ctx, input.query),
    deleteFault: (input) => deleteFault(ctx, input.path.faultId),
    resetState: () => resetState(ctx),
  };
}
