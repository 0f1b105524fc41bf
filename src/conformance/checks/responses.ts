// responses.<operationId>: every operation is called with valid data, built from what earlier
// calls returned, and its answer must validate against the spec (envelope and content type included).
import type { CheckDefinition } from "../check.js";
import { CheckSkipped } from "../errors.js";
import type { CheckContext } from "../context.js";
import type { RequestInput } from "../requests.js";
import { paidOrder } from "./paid-order.js";

type Id = number | bigint;

interface OperationCall {
  operationId: string;
  needs?: CheckDefinition["needs"];
  input(ctx: CheckContext): Promise<RequestInput>;
}

const merchant = (ctx: CheckContext) => ctx.resources.merchantId();

async function storeOrSkip(ctx: CheckContext): Promise<Id> {
  const store = await ctx.resources.storeId();
  if (store === undefined) throw new CheckSkipped("the merchant has no normal store");
  return store;
}

const CALLS: OperationCall[] = [
  { operationId: "syncCustomer", input: async (ctx) => ({ body: { openUserId: ctx.resources.unique("user"), nickname: "张三 mop", mobile: "+8613800138000" } }) },
  { operationId: "createOrder", input: async (ctx) => ({ body: await ctx.resources.orderBody() }) },
  { operationId: "getOrder", input: async (ctx) => ({ pathParams: { orderId: await ctx.resources.newOrder() }, query: { merchantId: await merchant(ctx) } }) },
  { operationId: "listOrderStatusHistory", input: async (ctx) => ({ pathParams: { orderId: await ctx.resources.newOrder() }, query: { merchantId: await merchant(ctx) } }) },
  { operationId: "payOrder", input: async (ctx) => ({ pathParams: { orderId: await ctx.resources.newOrder() }, body: { merchantId: BigInt(await merchant(ctx)), notifyUrl: ctx.resources.notifyUrl(), attach: "mop check" } }) },
  { operationId: "cancelOrder", input: async (ctx) => ({ pathParams: { orderId: await ctx.resources.newOrder() }, body: { merchantId: BigInt(await merchant(ctx)), reason: "mop check" } }) },
  { operationId: "refundOrder", needs: ["control"], input: async (ctx) => ({ pathParams: { orderId: await paidOrder(ctx, "product") }, query: { merchantId: await merchant(ctx) }, body: { reason: "mop check" } }) },
  { operationId: "writeOffOrder", needs: ["control"], input: async (ctx) => ({ pathParams: { orderId: await paidOrder(ctx, "voucher") }, query: { merchantId: await merchant(ctx) }, body: { remark: "mop check" } }) },
  { operationId: "createCashierSession", input: async (ctx) => ({ body: await ctx.resources.cashierBody({ attach: "{\"k\":\"v\"}", body: "conformance run", expireMinutes: 5 }) }) },
  {
    operationId: "queryPayment",
    input: async (ctx) => {
      const created = (await ctx.setup("createCashierSession", { body: await ctx.resources.cashierBody() })) as { tradeNo: string };
      return { query: { tradeNo: created.tradeNo } };
    },
  },
  {
    operationId: "purchaseMemberCard",
    input: async (ctx) => {
      const template = await ctx.resources.cardTemplate();
      return { body: { merchantId: BigInt(await merchant(ctx)), templateId: template.id, appUserId: await ctx.resources.appUserId() } };
    },
  },
  { operationId: "listCardTemplates", input: async (ctx) => ({ query: { merchantId: await merchant(ctx) } }) },
  { operationId: "listMerchants", input: async () => ({ query: { pageNo: 1, pageSize: 10 } }) },
  { operationId: "getMerchant", input: async (ctx) => ({ pathParams: { merchantId: await merchant(ctx) } }) },
  { operationId: "listStores", input: async (ctx) => ({ query: { merchantId: await merchant(ctx) } }) },
  { operationId: "getStore", input: async (ctx) => ({ pathParams: { storeId: await storeOrSkip(ctx) } }) },
  {
    operationId: "listNearbyStores",
    input: async (ctx) => {
      const storeId = await storeOrSkip(ctx);
      const store = (await ctx.setup("getStore", { pathParams: { storeId } })) as { latitude: number; longitude: number };
      return { query: { latitude: store.latitude, longitude: store.longitude, radius: 1000 } };
    },
  },
  { operationId: "getStoreBusinessHours", input: async (ctx) => ({ pathParams: { storeId: await storeOrSkip(ctx) } }) },
];

export const responseChecks: CheckDefinition[] = CALLS.map((call) => ({
  name: `responses.${call.operationId}`,
  tags: ["responses", "signed"],
  purpose: `${call.operationId} answers valid data with a success envelope that validates against the spec`,
  rule: `signed spec, operation ${call.operationId}`,
  // A source operation's shape is the source's; the nine operations it only names are designed.
  basis: [{ operation: call.operationId }],
  needs: ["signed", ...(call.needs ?? [])],
  async run(ctx) {
    const input = await call.input(ctx);
    ctx.expectSuccess(await ctx.signed(call.operationId, input), `signed spec, operation ${call.operationId}, response 200`);
  },
}));
