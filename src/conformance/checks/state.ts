// state.*: the preconditions the source states for payment, cancellation, refund and write-off.
import { SignedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition } from "../check.js";
import { CheckFailure } from "../errors.js";

const RULE = "source: States and transitions, stated preconditions; DESIGN item 2";

export const stateChecks: CheckDefinition[] = [
  {
    name: "state.pay-requires-pending",
    tags: ["state", "signed"],
    purpose: "payment of a cancelled order is refused with 300002 (payment only for a pending order)",
    rule: RULE,
    basis: [{ source: "payment may be started only for a pending-payment order" }],
    needs: ["signed"],
    async run(ctx) {
      const orderId = await ctx.resources.newOrder();
      const merchantId = BigInt(await ctx.resources.merchantId());
      await ctx.setup("cancelOrder", { pathParams: { orderId }, body: { merchantId } });
      ctx.expectRefused(await ctx.signed("payOrder", { pathParams: { orderId }, body: { merchantId, notifyUrl: ctx.resources.notifyUrl() } }), SignedErrors.ORDER_NOT_PENDING_PAYMENT.code, RULE, "payment of a cancelled order");
    },
  },
  {
    name: "state.cancel-requires-pending",
    tags: ["state", "signed"],
    purpose: "cancelling an order twice is refused with 300003 (cancellation only for a pending order)",
    rule: RULE,
    basis: [{ source: "cancellation applies to a pending-payment order" }],
    needs: ["signed"],
    async run(ctx) {
      const orderId = await ctx.resources.newOrder();
      const merchantId = BigInt(await ctx.resources.merchantId());
      const cancelled = ctx.expectSuccess(await ctx.signed("cancelOrder", { pathParams: { orderId }, body: { merchantId } }), RULE) as { status: number };
      if (cancelled.status !== 4) throw new CheckFailure({ message: `a cancelled order answered status ${cancelled.status}`, expected: "status 4 (cancelled)", rule: RULE });
      ctx.expectRefused(await ctx.signed("cancelOrder", { pathParams: { orderId }, body: { merchantId } }), SignedErrors.ORDER_NOT_CANCELLABLE.code, RULE, "cancelling a cancelled order");
    },
  },
  {
    name: "state.refund-requires-paid",
    tags: ["state", "signed"],
    purpose: "a refund of an unpaid order is refused with 300004 (refund only for a paid order)",
    rule: RULE,
    basis: [{ source: "a refund request applies to a paid order" }],
    needs: ["signed"],
    async run(ctx) {
      const orderId = await ctx.resources.newOrder();
      ctx.expectRefused(await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId: await ctx.resources.merchantId() }, body: { reason: "mop check" } }), SignedErrors.ORDER_NOT_REFUNDABLE.code, RULE, "a refund of a pending order");
    },
  },
  {
    name: "state.write-off-requires-service-type",
    tags: ["state", "signed"],
    purpose: "write-off of a product order is refused with 300005 (write-off only for service-type orders)",
    rule: RULE,
    basis: [{ source: "write-off applies to service-type orders" }],
    needs: ["signed"],
    async run(ctx) {
      const orderId = await ctx.resources.newOrder("product");
      ctx.expectRefused(await ctx.signed("writeOffOrder", { pathParams: { orderId }, query: { merchantId: await ctx.resources.merchantId() }, body: {} }), SignedErrors.ORDER_NOT_SERVICE_TYPE.code, RULE, "a write-off of a product order");
    },
  },
  {
    name: "state.paid-order-lifecycle",
    tags: ["state", "signed", "control"],
    purpose: "a paid order is status 1 with payTime, refunds to 5, and its history lists every move",
    rule: RULE,
    // The moves between statuses are "not shown" in the source; the status history is designed.
    basis: [{ decision: "Order transitions" }, { operation: "listOrderStatusHistory" }],
    needs: ["signed", "control"],
    async run(ctx) {
      const control = ctx.requireControl();
      const orderId = await ctx.resources.newOrder();
      const merchantId = await ctx.resources.merchantId();
      const payment = (await ctx.setup("payOrder", { pathParams: { orderId }, body: { merchantId: BigInt(merchantId), notifyUrl: ctx.resources.notifyUrl() } })) as { tradeNo: string };
      await control.payTrade(payment.tradeNo);
      const answer = await ctx.signed("getOrder", { pathParams: { orderId }, query: { merchantId } });
      const paid = ctx.expectSuccess(answer, RULE) as { status: number; payTime: string | null };
      if (paid.status !== 1 || !paid.payTime) throw new CheckFailure({ message: `after payment the order has status ${paid.status}, payTime ${paid.payTime}`, expected: "status 1 with payTime", rule: RULE, exchange: answer.exchange });
      ctx.expectSuccess(await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId }, body: { reason: "mop check" } }), RULE);
      ctx.expectRefused(await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId }, body: { reason: "again" } }), SignedErrors.ORDER_NOT_REFUNDABLE.code, RULE, "a second refund");
      const historyAnswer = await ctx.signed("listOrderStatusHistory", { pathParams: { orderId }, query: { merchantId } });
      const history = ctx.expectSuccess(historyAnswer, RULE) as Array<{ toStatus: number }>;
      const moves = history.map((record) => record.toStatus).join(",");
      if (moves !== "0,1,5") throw new CheckFailure({ message: `the status history is ${moves}`, expected: "0,1,5 (created, paid, refunded)", rule: RULE, exchange: historyAnswer.exchange });
    },
  },
  {
    name: "state.pay-zero-amount",
    tags: ["state", "signed"],
    purpose: "payment of an order whose total is 0 (every line priced 0) is refused with 300009",
    rule: "DESIGN item 2: a 0-amount order cannot be paid through a trade (trade totalAmount at least 1)",
    basis: [{ decision: "Order transitions" }, { error: "ORDER_ZERO_AMOUNT" }],
    needs: ["signed"],
    async run(ctx) {
      const rule = "DESIGN item 2: a 0-amount order cannot be paid through a trade (trade totalAmount at least 1)";
      const base = await ctx.resources.orderBody();
      const items = (base.items as Array<Record<string, unknown>>).map((item) => ({ ...item, price: 0 }));
      const orderId = (await ctx.setup("createOrder", { body: { ...base, items } })) as number | bigint;
      const merchantId = BigInt(await ctx.resources.merchantId());
      ctx.expectRefused(await ctx.signed("payOrder", { pathParams: { orderId }, body: { merchantId, notifyUrl: ctx.resources.notifyUrl() } }), SignedErrors.ORDER_ZERO_AMOUNT.code, rule, "payment of a 0-amount order");
    },
  },
];
