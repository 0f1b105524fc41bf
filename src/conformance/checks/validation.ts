// validation.*: each limit of the source is probed just inside (accepted) and just outside
// (refused with 100009).
import { SignedErrors } from "../../../generated/error-codes.js";
import type { Check } from "../check.js";
import type { CheckContext } from "../context.js";
import type { RequestInput } from "../requests.js";

const VALIDATION = SignedErrors.VALIDATION_FAILED.code;

interface Probe {
  name: string;
  limit: string;
  operationId: string;
  inside: (ctx: CheckContext) => Promise<RequestInput>;
  outside: (ctx: CheckContext) => Promise<RequestInput>;
}

const cashier = (patch: Record<string, unknown>) => async (ctx: CheckContext): Promise<RequestInput> => ({ body: await ctx.resources.cashierBody(patch) });
const order = (items: unknown[]) => async (ctx: CheckContext): Promise<RequestInput> => ({ body: { ...(await ctx.resources.orderBody()), items } });
const line = (patch: Record<string, unknown>) => ({ itemType: 1, itemId: 1, itemName: "mop check item", price: 100, quantity: 1, ...patch });
const pageSize = (operationId: string, size: number) => async (ctx: CheckContext): Promise<RequestInput> =>
  operationId === "listStores" ? { query: { merchantId: await ctx.resources.merchantId(), pageSize: size } } : { query: { pageSize: size } };

const PROBES: Probe[] = [
  { name: "merchant-page-size", limit: "pageSize maximum 100 (signed merchant list)", operationId: "listMerchants", inside: pageSize("listMerchants", 100), outside: pageSize("listMerchants", 101) },
  { name: "store-page-size", limit: "pageSize maximum 100 (store list)", operationId: "listStores", inside: pageSize("listStores", 100), outside: pageSize("listStores", 101) },
  { name: "subject-length", limit: "subject at most 32 characters", operationId: "createCashierSession", inside: cashier({ subject: "字".repeat(32) }), outside: cashier({ subject: "字".repeat(33) }) },
  { name: "body-length", limit: "body at most 128 characters", operationId: "createCashierSession", inside: cashier({ body: "b".repeat(128) }), outside: cashier({ body: "b".repeat(129) }) },
  { name: "attach-length", limit: "attach at most 512 characters", operationId: "createCashierSession", inside: cashier({ attach: "a".repeat(512) }), outside: cashier({ attach: "a".repeat(513) }) },
  { name: "notify-url-https", limit: "notifyUrl must be HTTPS", operationId: "createCashierSession", inside: cashier({ notifyUrl: "https://example.invalid/notify" }), outside: cashier({ notifyUrl: "http://example.invalid/notify" }) },
  { name: "cashier-total-amount", limit: "totalAmount greater than 0", operationId: "createCashierSession", inside: cashier({ totalAmount: 1 }), outside: cashier({ totalAmount: 0 }) },
  { name: "order-items-not-empty", limit: "items not empty", operationId: "createOrder", inside: order([line({})]), outside: order([]) },
  { name: "order-item-price", limit: "items[].price not negative", operationId: "createOrder", inside: order([line({ price: 0 })]), outside: order([line({ price: -1 })]) },
  { name: "order-item-quantity", limit: "items[].quantity greater than 0", operationId: "createOrder", inside: order([line({ quantity: 1 })]), outside: order([line({ quantity: 0 })]) },
];

const probeChecks: Check[] = PROBES.map((probe) => ({
  name: `validation.${probe.name}`,
  tags: ["validation", "signed"],
  purpose: `${probe.limit}: just inside is accepted, just outside is refused with ${VALIDATION}`,
  rule: `source: Limits, "${probe.limit}"`,
  needs: ["signed"],
  async run(ctx) {
    const rule = `source: Limits, "${probe.limit}" (${probe.operationId})`;
    ctx.expectSuccess(await ctx.signed(probe.operationId, await probe.inside(ctx)), rule);
    ctx.expectRefused(await ctx.signed(probe.operationId, await probe.outside(ctx)), VALIDATION, rule, `a value just outside "${probe.limit}"`);
  },
}));

const UNKNOWN_QUERY_RULE = 'signed spec, info, rules every implementation follows: "Unknown query parameters are refused" with 100009';

const UNKNOWN_BODY_RULE = 'signed spec, info, rules every implementation follows: "so are unknown body properties"; request schemas have additionalProperties: false';

export const validationChecks: Check[] = [
  ...probeChecks,
  {
    name: "validation.unknown-query-parameter",
    tags: ["validation", "signed"],
    purpose: `a query parameter the operation does not declare is refused with ${VALIDATION}, not ignored`,
    rule: UNKNOWN_QUERY_RULE,
    needs: ["signed"],
    async run(ctx) {
      const merchantId = await ctx.resources.merchantId();
      // The same request without it is accepted, so the refusal is about the unknown name only.
      ctx.expectSuccess(await ctx.signed("listStores", { query: { merchantId } }), UNKNOWN_QUERY_RULE);
      ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId, mopCheckUnknown: "1" } }), VALIDATION, UNKNOWN_QUERY_RULE, "an undeclared query parameter (mopCheckUnknown)");
    },
  },
  {
    name: "validation.unknown-body-property",
    tags: ["validation", "signed"],
    purpose: `a body property the request schema does not declare is refused with ${VALIDATION} (request schemas are closed)`,
    rule: UNKNOWN_BODY_RULE,
    needs: ["signed"],
    async run(ctx) {
      ctx.expectRefused(await ctx.signed("createOrder", { body: { ...(await ctx.resources.orderBody()), mopCheckUnknown: 1 } }), VALIDATION, UNKNOWN_BODY_RULE, "an undeclared body property (mopCheckUnknown)");
    },
  },
];
