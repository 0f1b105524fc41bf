// A paid order for the checks that need one: created through the signed interface, paid
// through the sandbox control API (a real server cannot be paid by a checker).
import type { CheckContext } from "../context.js";

type Id = number | bigint;

export async function paidOrder(ctx: CheckContext, kind: "product" | "voucher"): Promise<Id> {
  const control = ctx.requireControl();
  const orderId = await ctx.resources.newOrder(kind);
  const merchantId = await ctx.resources.merchantId();
  const payment = (await ctx.setup("payOrder", { pathParams: { orderId }, body: { merchantId: BigInt(merchantId), notifyUrl: ctx.resources.notifyUrl() } })) as { tradeNo: string };
  await control.payTrade(payment.tradeNo);
  return orderId;
}
