// One snapshot of everything the dashboard shows, read from the running sandbox's state.
// Request lines only: a request's detail is fetched when it is opened (request-view.ts).
import { formatPlatformTime } from "../clock.js";
import { clockView, listDeliveries } from "../control.js";
import { listFaults } from "../faults/control.js";
import type { SandboxContext } from "../context.js";
import { ORDER_STATUS, SERVICE_ORDER_TYPE } from "../domain/order-status.js";
import type { RequestRecorder } from "./recorder.js";
import { appSecrets, requestLine } from "./request-view.js";
import { orderStatusWord, orderTypeWord, tradeStatusMeaning } from "./words.js";

const SHOWN = 50;
/** Redeliveries shown per callback card, around now (listCallbackDeliveries has every one). */
export const SHOWN_REDELIVERIES = 20;
/** Requests shown per fault, the latest it answered (listFaults has its last 20). */
export const SHOWN_FAULT_HITS = 5;

/**
 * At most SHOWN_REDELIVERIES of an event's redeliveries (kept in due order): the latest sent and
 * the next scheduled, half and half where both are many, and how many are left out either side.
 */
function aroundNow<T extends { status: string }>(redeliveries: readonly T[]) {
  const firstScheduled = redeliveries.findIndex((redelivery) => redelivery.status === "scheduled");
  const now = firstScheduled === -1 ? redeliveries.length : firstScheduled;
  const start = Math.max(0, Math.min(now - SHOWN_REDELIVERIES / 2, redeliveries.length - SHOWN_REDELIVERIES));
  const shown = redeliveries.slice(start, start + SHOWN_REDELIVERIES);
  return { redeliveries: shown, redeliveriesNotShown: { earlier: start, later: redeliveries.length - start - shown.length } };
}

export async function dashboardState(ctx: SandboxContext, recorder: RequestRecorder) {
  const time = (ms: number | null) => (ms === null ? null : formatPlatformTime(ms));
  const trades = (await ctx.records.trades({ limit: SHOWN })).map((trade) => ({
    tradeNo: trade.tradeNo,
    outTradeNo: trade.outTradeNo,
    orderId: trade.orderId === null ? null : trade.orderId.toString(),
    status: trade.status,
    statusMeaning: tradeStatusMeaning(trade.status),
    totalAmount: trade.totalAmount,
    subject: trade.subject,
    createTime: time(trade.createTime),
    expireTime: time(trade.expireTime),
    payTime: time(trade.payTime),
  }));
  const orders = (await ctx.records.orders({ limit: SHOWN })).map((order) => ({
    orderId: order.id.toString(),
    merchantId: order.merchantId.toString(),
    orderType: order.orderType,
    orderTypeWord: orderTypeWord(order.orderType),
    status: order.status,
    statusWord: orderStatusWord(order.status),
    // The control API starts service only of a paid service-type order: offered only there.
    canStartService: order.orderType === SERVICE_ORDER_TYPE && order.status === ORDER_STATUS.PAID,
    totalAmount: order.totalAmount,
    createTime: time(order.createTime),
    payTime: time(order.payTime),
    tradeNos: order.tradeNos,
  }));
  const deliveries = (await listDeliveries(ctx, { limit: SHOWN })).list.map(({ redeliveries, ...delivery }) => ({
    ...delivery,
    applicationId: delivery.applicationId === null ? null : delivery.applicationId.toString(),
    ...aroundNow(redeliveries),
  }));
  const secrets = appSecrets(ctx);
  return {
    clock: clockView(ctx),
    requests: recorder.list().map((kept) => requestLine(kept, secrets)),
    /** The dashboard's own reads (its polling), counted here and kept out of the request log. */
    ownRequests: recorder.ownRequests,
    trades,
    orders,
    deliveries,
    /** The faults set with the control API, active and spent (docs/scenarios.md). */
    faults: (await listFaults(ctx, {})).list.map(({ hits, ...fault }) => ({ ...fault, answered: fault.times - fault.remaining, hits: hits.slice(-SHOWN_FAULT_HITS) })),
  };
}
