// permissions.*: an app sees only its authorised merchants (100008 otherwise).
import { SignedErrors } from "../../../generated/error-codes.js";
import { CheckSkipped, type Check } from "../check.js";

const RULE = "source: Errors, 100008 \"no data permission for that merchant\"; Authentication, permission facts";

export const permissionChecks: Check[] = [
  {
    name: "permissions.unauthorised-merchant",
    tags: ["permissions", "signed"],
    purpose: "a merchant the app is not authorised for is refused with 100008 (detail, store list, order creation)",
    rule: RULE,
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
];
