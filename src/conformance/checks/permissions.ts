// permissions.*: an app sees only its authorised merchants (100008 otherwise).
import { SignedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition } from "../check.js";
import { CheckSkipped } from "../errors.js";

const RULE = "source: Errors, 100008 \"no data permission for that merchant\"; Authentication, permission facts";

const PRECEDENCE_RULE = 'signed spec, info, rules every implementation follows: "Permission precedence" (100007, then 200001 not found, then 100008 not authorised, then 200002 offline)';
/** An int64 no server is expected to have issued as a merchant id (the largest minus one). */
const UNKNOWN_MERCHANT = "9223372036854775806";

export const permissionChecks: CheckDefinition[] = [
  {
    name: "permissions.unauthorised-merchant",
    tags: ["permissions", "signed"],
    purpose: "a merchant the app is not authorised for is refused with 100008 (detail, store list, order creation)",
    rule: RULE,
    basis: [{ source: "no data permission for that merchant" }],
    needs: ["signed", "foreignMerchant"],
    async run(ctx) {
      const foreign = ctx.options.foreignMerchantId;
      if (!foreign) throw new CheckSkipped("no --foreign-merchant-id (a merchant that exists but is not authorised for the app)");
      const code = SignedErrors.MERCHANT_DATA_FORBIDDEN.code;
      ctx.expectRefused(await ctx.signed("getMerchant", { pathParams: { merchantId: foreign } }), code, RULE, "the detail of an unauthorised merchant");
      ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId: foreign } }), code, RULE, "the stores of an unauthorised merchant");
      const body = { ...(await ctx.resources.orderBody()), merchantId: BigInt(foreign) };
      ctx.expectRefused(await ctx.signed("createOrder", { body }), code, RULE, "an order for an unauthorised merchant");
    },
  },
  {
    name: "permissions.precedence",
    tags: ["permissions", "signed"],
    purpose: "a merchant that does not exist is 200001, not 100008; one that exists but is not authorised is 100008 (existence before authorisation)",
    rule: PRECEDENCE_RULE,
    basis: [{ decision: "permission precedence" }],
    needs: ["signed"],
    async run(ctx) {
      const unknown = UNKNOWN_MERCHANT;
      const notFound = SignedErrors.MERCHANT_NOT_FOUND.code;
      ctx.expectRefused(await ctx.signed("getMerchant", { pathParams: { merchantId: unknown } }), notFound, PRECEDENCE_RULE, "the detail of a merchant that does not exist");
      ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId: unknown } }), notFound, PRECEDENCE_RULE, "the stores of a merchant that does not exist");
      const body = { ...(await ctx.resources.orderBody()), merchantId: BigInt(unknown) };
      ctx.expectRefused(await ctx.signed("createOrder", { body }), notFound, PRECEDENCE_RULE, "an order for a merchant that does not exist");
      const foreign = ctx.options.foreignMerchantId;
      if (foreign) ctx.expectRefused(await ctx.signed("getMerchant", { pathParams: { merchantId: foreign } }), SignedErrors.MERCHANT_DATA_FORBIDDEN.code, PRECEDENCE_RULE, "the detail of an existing merchant the app is not authorised for");
    },
  },
];
