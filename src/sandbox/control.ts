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
export async function resetClock(ctx: SandboxContext) {
  // The offset lives with the records, so every instance sharing them moves with it.
  ctx.clock.setOffset(await ctx.records.clockOffset.reset());
  return clockView(ctx);
}

/** Moves the clock; trades expire, UNKNOWN results become known, and due callback retries and redeliveries go out at once. */
export async function advanceClock(ctx: SandboxContext, seconds: number) {
  ctx.clock.setOffset(await ctx.records.clockOffset.advance(seconds * 1000));
  const expiredTrades = await expireDueTrades(ctx);
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

/** The delivery log, newest first, each event with the redeliveries asked of this instance. */
export async function listDeliveries(ctx: SandboxContext, filter: DeliveryFilter & { limit?: number }) {
  const list = (await ctx.callbacks.events(filter)).map((event) => ({ ...deliveryView(event), redeliveries: ctx.scenarios.redeliveries.of(event.eventId).map(redeliveryView) }));
  return { list, total: list.length };
}

export async function redeliverCallback(ctx: SandboxContext, eventId: string, request: RedeliveryRequest) {
  const event = await ctx.callbacks.event(eventId);
  if (!event) throw signedError("CALLBACK_EVENT_NOT_FOUND", `eventId: the sandbox holds no callback event ${eventId} (a reset drops them); listCallbackDeliveries shows those there are.`);
  const made = await ctx.scenarios.redeliveries.redeliver(ctx, event, request);
  return { eventId, redeliveries: made.map(redeliveryView) };
}
/**
 * Drops what requests created, for one app (`appKey`) or for every app, and restores the
 * fixtures' customers. Records shared by a team (PostgreSQL) are reset one app at a time:
 * without an appKey the reset is refused, so no one drops the whole team's data by accident.
 */
export async function resetState(ctx: SandboxContext, appKey?: string) {
  if (appKey !== undefined && ctx.records.app(appKey) === undefined) {
    throw signedError("VALIDATION_FAILED", `query.appKey ${JSON.stringify(appKey)} is not an app of the fixtures (${ctx.records.apps().map((app) => app.appKey).join(", ")}).`);
  }
  if (appKey === undefined && ctx.records.shared) {
    throw signedError(
      "VALIDATION_FAILED",
      "query.appKey is required: this sandbox keeps its records in a database that a team shares, so a reset applies to one app at a time " +
        `(POST /sandbox/reset?appKey=${ctx.records.apps()[0]?.appKey ?? "…"}). See docs/team-sandbox.md.`,
    );
  }
  if (appKey === undefined) ctx.callbacks.reset();
  await ctx.records.reset(appKey);
  await ctx.scenarios.reset(appKey);
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
    payTrade: async (input) => {
      const result = await payTrade(ctx, input.path.tradeNo, input.body ?? {});
      return { trade: controlTradeView(result.trade), eventId: result.eventId, outcome: paymentOutcomeView(result) };
    },
    closeTrade: async (input) => controlTradeView(await closeTrade(ctx, input.path.tradeNo, "closed by the control API")),
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
    resetState: (input) => resetState(ctx, (input.query as { appKey?: string }).appKey),
  };
}
