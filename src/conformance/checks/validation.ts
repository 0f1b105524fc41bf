// validation.*: each limit of the source is probed just inside (accepted) and just outside
// (refused with 100009).
import { SignedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition, RuleBasis } from "../check.js";
import type { FieldRule } from "../origin.js";
import type { CheckContext } from "../context.js";
import type { RequestInput } from "../requests.js";

const VALIDATION = SignedErrors.VALIDATION_FAILED.code;

interface Probe {
  name: string;
  /** The row of the source's Limits table (its cells joined by spaces). */
  quote: string;
  limit: string;
  operationId: string;
  /** The spec keyword that says it (its origin is read from the spec's marks). */
  field: Omit<FieldRule, "operationId">;
  inside: (ctx: CheckContext) => Promise<RequestInput>;
  outside: (ctx: CheckContext) => Promise<RequestInput>;
}

const cashier = (patch: Record<string, unknown>) => async (ctx: CheckContext): Promise<RequestInput> => ({ body: await ctx.resources.cashierBody(patch) });
const order = (items: unknown[]) => async (ctx: CheckContext): Promise<RequestInput> => ({ body: { ...(await ctx.resources.orderBody()), items } });
const line = (patch: Record<string, unknown>) => ({ itemType: 1, itemId: 1, itemName: "mop check item", price: 100, quantity: 1, ...patch });
const pageSize = (operationId: string, size: number) => async (ctx: CheckContext): Promise<RequestInput> =>
  operationId === "listStores" ? { query: { merchantId: await ctx.resources.merchantId(), pageSize: size } } : { query: { pageSize: size } };

const PROBES: Probe[] = [
  { name: "merchant-page-size", quote: "pageSize maximum 100 signed merchant list", limit: "pageSize maximum 100 (signed merchant list)", operationId: "listMerchants", field: { in: "query", name: "pageSize", keyword: "maximum" }, inside: pageSize("listMerchants", 100), outside: pageSize("listMerchants", 101) },
  { name: "store-page-size", quote: "pageSize maximum 100 signed merchant list, store list", limit: "pageSize maximum 100 (store list)", operationId: "listStores", field: { in: "query", name: "pageSize", keyword: "maximum" }, inside: pageSize("listStores", 100), outside: pageSize("listStores", 101) },
  { name: "subject-length", quote: "subject length at most 32 characters", limit: "subject at most 32 characters", operationId: "createCashierSession", field: { in: "body", name: "subject", keyword: "maxLength" }, inside: cashier({ subject: "字".repeat(32) }), outside: cashier({ subject: "字".repeat(33) }) },
  { name: "body-length", quote: "body length at most 128 characters", limit: "body at most 128 characters", operationId: "createCashierSession", field: { in: "body", name: "body", keyword: "maxLength" }, inside: cashier({ body: "b".repeat(128) }), outside: cashier({ body: "b".repeat(129) }) },
  { name: "attach-length", quote: "attach length at most 512 characters", limit: "attach at most 512 characters", operationId: "createCashierSession", field: { in: "body", name: "attach", keyword: "maxLength" }, inside: cashier({ attach: "a".repeat(512) }), outside: cashier({ attach: "a".repeat(513) }) },
  { name: "notify-url-https", quote: "notifyUrl must be HTTPS", limit: "notifyUrl must be HTTPS", operationId: "createCashierSession", field: { in: "body", name: "notifyUrl", keyword: "pattern" }, inside: cashier({ notifyUrl: "https://example.invalid/notify" }), outside: cashier({ notifyUrl: "http://example.invalid/notify" }) },
  { name: "cashier-total-amount", quote: "totalAmount greater than 0", limit: "totalAmount greater than 0", operationId: "createCashierSession", field: { in: "body", name: "totalAmount", keyword: "minimum" }, inside: cashier({ totalAmount: 1 }), outside: cashier({ totalAmount: 0 }) },
  { name: "order-items-not-empty", quote: "items not empty", limit: "items not empty", operationId: "createOrder", field: { in: "body", name: "items", keyword: "minItems" }, inside: order([line({})]), outside: order([]) },
  { name: "order-item-price", quote: "items[].price not negative", limit: "items[].price not negative", operationId: "createOrder", field: { in: "body", name: "items[].price", keyword: "minimum" }, inside: order([line({ price: 0 })]), outside: order([line({ price: -1 })]) },
  { name: "order-item-quantity", quote: "items[].quantity greater than 0", limit: "items[].quantity greater than 0", operationId: "createOrder", field: { in: "body", name: "items[].quantity", keyword: "minimum" }, inside: order([line({ quantity: 1 })]), outside: order([line({ quantity: 0 })]) },
];

const probeChecks: CheckDefinition[] = PROBES.map((probe) => ({
  name: `validation.${probe.name}`,
  tags: ["validation", "signed"],
  purpose: `${probe.limit}: just inside is accepted, just outside is refused with ${VALIDATION}`,
  rule: `source: Limits, "${probe.limit}"`,
  basis: [{ source: probe.quote }, { field: { operationId: probe.operationId, ...probe.field } }],
  needs: ["signed"],
  async run(ctx) {
    const rule = `source: Limits, "${probe.limit}" (${probe.operationId})`;
    ctx.expectSuccess(await ctx.signed(probe.operationId, await probe.inside(ctx)), rule);
    ctx.expectRefused(await ctx.signed(probe.operationId, await probe.outside(ctx)), VALIDATION, rule, `a value just outside "${probe.limit}"`);
  },
}));

const UNKNOWN_QUERY_RULE = 'signed spec, info, rules every implementation follows: "Unknown query parameters are refused" with 100009';

const UNKNOWN_BODY_RULE = 'signed spec, info, rules every implementation follows: "so are unknown body properties"; request schemas have additionalProperties: false';

// Refusing what an operation does not declare is the contract's choice: the source is silent.
const CLOSED_REQUESTS: RuleBasis[] = [{ decision: "unknown query parameters refused" }];

export const validationChecks: CheckDefinition[] = [
  ...probeChecks,
  {
    name: "validation.unknown-query-parameter",
    tags: ["validation", "signed"],
    purpose: `a query parameter the operation does not declare is refused with ${VALIDATION}, not ignored`,
    rule: UNKNOWN_QUERY_RULE,
    basis: CLOSED_REQUESTS,
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
    basis: [{ decision: "unknown body properties refused" }],
    needs: ["signed"],
    async run(ctx) {
      ctx.expectRefused(await ctx.signed("createOrder", { body: { ...(await ctx.resources.orderBody()), mopCheckUnknown: 1 } }), VALIDATION, UNKNOWN_BODY_RULE, "an undeclared body property (mopCheckUnknown)");
    },
  },
];
