// idempotency.*: outTradeNo is the idempotency key of cashier creation (DESIGN item 7).
import { SignedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition, RuleBasis } from "../check.js";
import { CheckFailure } from "../errors.js";
import { paidOrder } from "./paid-order.js";

const RULE = "source: Payment trade input, outTradeNo \"idempotency key; globally unique\"; DESIGN item 7";
const REFUND_RULE = "signed spec, refundOrder: outRefundNo is the refund's idempotency key; DESIGN item 7";
type Session = { tradeNo: string; cashierUrl: string };

const KEY: RuleBasis = { source: "idempotency key; globally unique" };

export const idempotencyChecks: CheckDefinition[] = [
  {
    name: "idempotency.same-parameters",
    tags: ["idempotency", "signed"],
    purpose: "repeating a cashier creation with the same outTradeNo and parameters answers the same tradeNo and cashierUrl",
    rule: RULE,
    basis: [KEY],
    needs: ["signed"],
    async run(ctx) {
      const body = await ctx.resources.cashierBody({ attach: "same" });
      const first = ctx.expectSuccess(await ctx.signed("createCashierSession", { body }), RULE) as Session;
      const again = await ctx.signed("createCashierSession", { body });
      const second = ctx.expectSuccess(again, RULE) as Session;
      if (second.tradeNo !== first.tradeNo || second.cashierUrl !== first.cashierUrl) {
        throw new CheckFailure({ message: `the repeat answered tradeNo ${second.tradeNo}, the first ${first.tradeNo}`, expected: "the original tradeNo and cashierUrl", rule: RULE, exchange: again.exchange });
      }
    },
  },
  {
    name: "idempotency.different-parameters",
    tags: ["idempotency", "signed"],
    purpose: "the same outTradeNo with another amount is refused with 400002",
    rule: RULE,
    // What a reused key with other parameters answers is the contract's choice.
    basis: [KEY, { decision: "Idempotency" }, { error: "OUT_TRADE_NO_CONFLICT" }],
    needs: ["signed"],
    async run(ctx) {
      const body = await ctx.resources.cashierBody();
      ctx.expectSuccess(await ctx.signed("createCashierSession", { body }), RULE);
      ctx.expectRefused(await ctx.signed("createCashierSession", { body: { ...body, totalAmount: 200 } }), SignedErrors.OUT_TRADE_NO_CONFLICT.code, RULE, "a reused outTradeNo with another totalAmount");
    },
  },
  {
    name: "idempotency.parallel",
    tags: ["idempotency", "signed"],
    purpose: "parallel duplicate cashier creations make one trade: every answer has the same tradeNo",
    rule: RULE,
    basis: [KEY],
    needs: ["signed"],
    async run(ctx) {
      const body = await ctx.resources.cashierBody();
      const answers = await Promise.all(Array.from({ length: 8 }, () => ctx.signed("createCashierSession", { body })));
      const tradeNos = new Set(answers.map((answer) => (ctx.expectSuccess(answer, RULE) as Session).tradeNo));
      if (tradeNos.size !== 1) {
        throw new CheckFailure({ message: `8 parallel creations with one outTradeNo made ${tradeNos.size} trades: ${[...tradeNos].join(", ")}`, expected: "one tradeNo", rule: RULE, exchange: answers[1]!.exchange });
      }
    },
  },
  {
    name: "idempotency.out-refund-no",
    tags: ["idempotency", "signed", "control"],
    purpose: "a refund repeated with the same outRefundNo and parameters answers the original refund; with another reason it is refused with 400004",
    rule: REFUND_RULE,
    basis: [{ operation: "refundOrder" }, { decision: "Idempotency" }],
    needs: ["signed", "control"],
    async run(ctx) {
      const orderId = await paidOrder(ctx, "product");
      const merchantId = await ctx.resources.merchantId();
      const body = { reason: "mop check", outRefundNo: ctx.resources.unique("rfd") };
      const first = ctx.expectSuccess(await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId }, body }), REFUND_RULE) as { refundNo: string };
      const again = await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId }, body });
      const second = ctx.expectSuccess(again, REFUND_RULE) as { refundNo: string };
      if (second.refundNo !== first.refundNo) {
        throw new CheckFailure({ message: `the repeat answered refundNo ${second.refundNo}, the first ${first.refundNo}`, expected: "the original refund record", rule: REFUND_RULE, exchange: again.exchange });
      }
      ctx.expectRefused(await ctx.signed("refundOrder", { pathParams: { orderId }, query: { merchantId }, body: { ...body, reason: "mop check, another reason" } }), SignedErrors.OUT_REFUND_NO_CONFLICT.code, REFUND_RULE, "a reused outRefundNo with another reason");
    },
  },
];
