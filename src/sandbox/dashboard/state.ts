// One snapshot of everything the dashboard shows, read from the running sandbox's state.
import { formatPlatformTime } from "../clock.js";
import { clockView, listDeliveries } from "../control.js";
import type { SandboxContext } from "../context.js";
import type { RequestRecorder } from "./recorder.js";

const SHOWN = 50;

export function dashboardState(ctx: SandboxContext, recorder: RequestRecorder) {
  const time = (ms: number | null) => (ms === null ? null : formatPlatformTime(ms));
  const trades = [...ctx.records.trades()]
    .sort((a, b) => b.createTime - a.createTime)
    .slice(0, SHOWN)
    .map((trade) => ({
      tradeNo: trade.tradeNo,
      outTradeNo: trade.outTradeNo,
      orderId: trade.orderId === null ? null : trade.orderId.toString(),
      status: trade.status,
      totalAmount: trade.totalAmount,
      subject: trade.subject,
      createTime: time(trade.createTime),
      expireTime: time(trade.expireTime),
      payTime: time(trade.payTime),
    }));
  const orders = [...ctx.records.orders()]
    .sort((a, b) => b.createTime - a.createTime)
    .slice(0, SHOWN)
    .map((order) => ({
      orderId: order.id.toString(),
      merchantId: order.merchantId.toString(),
      orderType: order.orderType,
      status: order.status,
      totalAmount: order.totalAmount,
      createTime: time(order.createTime),
      payTime: time(order.payTime),
      tradeNos: order.tradeNos,
    }));
  const deliveries = listDeliveries(ctx, {}).list.slice(0, SHOWN).map((delivery) => ({
    ...delivery,
    applicationId: delivery.applicationId === null ? null : delivery.applicationId.toString(),
  }));
  return { clock: clockView(ctx), requests: recorder.list(), trades, orders, deliveries };
}
