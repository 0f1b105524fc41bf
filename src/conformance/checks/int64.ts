// int64.*: ids are handled exactly; an id above 2^53 from the server comes back unchanged.
import { SignedErrors } from "../../../generated/error-codes.js";
import { CheckFailure, CheckSkipped, type Check } from "../check.js";

const RULE = "DESIGN item 11; signed spec, Int64Id (integer, format int64)";
const SAFE = 2n ** 53n - 1n;

/** The digits of a JSON number field in raw text, so no parser can round them. */
function rawDigits(text: string, field: string): string | undefined {
  return text.match(new RegExp(`"${field}"\\s*:\\s*(\\d+)`))?.[1];
}

export const int64Checks: Check[] = [
  {
    name: "int64.order-id-round-trip",
    tags: ["int64", "signed"],
    purpose: "a new order's id, sent back digit for digit, finds the order with the same id",
    rule: RULE,
    needs: ["signed"],
    async run(ctx) {
      const created = await ctx.signed("createOrder", { body: await ctx.resources.orderBody() });
      ctx.expectSuccess(created, RULE);
      const digits = rawDigits(created.exchange.response!.bodyText, "data");
      if (!digits) throw new CheckFailure({ message: "createOrder's data is not a JSON integer", expected: "the new order's id as an integer", rule: RULE, exchange: created.exchange });
      const fetched = await ctx.signed("getOrder", { pathParams: { orderId: digits }, query: { merchantId: await ctx.resources.merchantId() } });
      ctx.expectSuccess(fetched, RULE);
      const back = rawDigits(fetched.exchange.response!.bodyText, "id");
      if (back !== digits) throw new CheckFailure({ message: `asked for order ${digits}, got order ${back}`, expected: "the same digits", rule: RULE, exchange: fetched.exchange });
    },
  },
  {
    name: "int64.above-2^53",
    tags: ["int64", "signed"],
    purpose: "an id above 2^53 from the server is exact on the wire and accepted back unchanged",
    rule: RULE,
    needs: ["signed"],
    async run(ctx) {
      const created = await ctx.signed("createOrder", { body: await ctx.resources.orderBody() });
      ctx.expectSuccess(created, RULE);
      const digits = rawDigits(created.exchange.response!.bodyText, "data")!;
      if (BigInt(digits) <= SAFE) throw new CheckSkipped(`the server's order ids are below 2^53 (got ${digits}); nothing above 2^53 to send back`);
      const history = await ctx.signed("listOrderStatusHistory", { pathParams: { orderId: digits }, query: { merchantId: await ctx.resources.merchantId() } });
      ctx.expectSuccess(history, RULE);
      const back = rawDigits(history.exchange.response!.bodyText, "orderId");
      if (back !== digits) throw new CheckFailure({ message: `the history of order ${digits} names order ${back}`, expected: "the exact id above 2^53", rule: RULE, exchange: history.exchange });
    },
  },
  {
    name: "int64.largest-id",
    tags: ["int64", "signed"],
    purpose: "the largest int64 (9223372036854775807) is a valid id that is simply not found; one more is a validation error",
    rule: RULE,
    needs: ["signed"],
    async run(ctx) {
      const merchantId = await ctx.resources.merchantId();
      ctx.expectRefused(await ctx.signed("getOrder", { pathParams: { orderId: "9223372036854775807" }, query: { merchantId } }), SignedErrors.ORDER_NOT_FOUND.code, RULE, "an unknown order with the largest int64 id");
      ctx.expectRefused(await ctx.signed("getOrder", { pathParams: { orderId: "9223372036854775808" }, query: { merchantId } }), SignedErrors.VALIDATION_FAILED.code, RULE, "an order id beyond int64");
    },
  },
];
