// int64.*: ids are handled exactly. Every kind of id the run meets (merchants, stores, card
// templates, app users, orders) that is above 2^53 must come back unchanged when sent back, and
// its double-rounded form must be a different, unknown id: a server that reads ids as doubles
// finds the same record under both, one that issues large ids exactly does not.
import { SignedErrors } from "../../../generated/error-codes.js";
import { type Check } from "../check.js";
import { CheckFailure, CheckSkipped } from "../errors.js";
import type { Answer, CheckContext } from "../context.js";

const RULE = "DESIGN item 11; signed spec, Int64Id (integer, format int64)";
const SAFE = 2n ** 53n - 1n;
const VALIDATION = SignedErrors.VALIDATION_FAILED.code;

/** The digits of a JSON number field in raw text, so no parser can round them. */
function rawDigits(text: string, field: string): string | undefined {
  return text.match(new RegExp(`"${field}"\\s*:\\s*(\\d+)`))?.[1];
}

/** Every integer of a list answer's items under `field`, as exact digits. */
function listedIds(answer: Answer, field = "id"): string[] {
  if (!answer.verdict.success) return [];
  const data = answer.verdict.data as { list?: Array<Record<string, unknown>> } | undefined;
  return (data?.list ?? []).map((item) => item[field]).filter((id): id is number | bigint => typeof id === "number" || typeof id === "bigint").map(String);
}

interface IdKind {
  kind: string;
  /** The registry code for an id of this kind that does not exist. */
  notFound: number;
  /** Ids of this kind the run can see (created by or visible to the checker's app). */
  discover(ctx: CheckContext): Promise<string[]>;
  /** Sends an id back (for a rounded form, `of` is the id it was rounded from); `field` names where a success answer repeats it. */
  sendBack(ctx: CheckContext, id: string, of?: string): Promise<{ answer: Answer; field?: string }>;
}

const KINDS: IdKind[] = [
  {
    kind: "merchant",
    notFound: SignedErrors.MERCHANT_NOT_FOUND.code,
    discover: knownMerchants,
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("getMerchant", { pathParams: { merchantId: id } }), field: "id" }),
  },
  {
    kind: "store",
    notFound: SignedErrors.STORE_NOT_FOUND.code,
    discover: async (ctx) => listedIds(await ctx.signed("listStores", { query: { pageNo: 1, pageSize: 100 } })),
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("getStore", { pathParams: { storeId: id } }), field: "id" }),
  },
  {
    kind: "card template",
    notFound: SignedErrors.CARD_TEMPLATE_NOT_FOUND.code,
    discover: async (ctx) => [...(await templateMerchants(ctx)).keys()],
    // The purchase answers no template id: it must simply find the template (any answer but "not found").
    async sendBack(ctx, id, of) {
      // A rounded template id is asked of the merchant of the template it was rounded from.
      const merchantId = (await templateMerchants(ctx)).get(of ?? id) ?? (await ctx.resources.merchantId());
      return { answer: await ctx.signed("purchaseMemberCard", { body: { merchantId: BigInt(merchantId), templateId: BigInt(id), appUserId: await ctx.resources.appUserId() } }) };
    },
  },
  {
    kind: "app user",
    notFound: SignedErrors.CUSTOMER_NOT_FOUND.code,
    discover: async (ctx) => [String(await ctx.resources.appUserId())],
    async sendBack(ctx, id) {
      const created = await ctx.signed("createOrder", { body: { ...(await ctx.resources.orderBody()), userId: BigInt(id) } });
      if (!created.verdict.success) return { answer: created };
      const orderId = rawDigits(created.exchange.response!.bodyText, "data")!;
      return { answer: await ctx.signed("getOrder", { pathParams: { orderId }, query: { merchantId: await ctx.resources.merchantId() } }), field: "userId" };
    },
  },
  {
    kind: "order",
    notFound: SignedErrors.ORDER_NOT_FOUND.code,
    async discover(ctx) {
      const created = await ctx.signed("createOrder", { body: await ctx.resources.orderBody() });
      ctx.expectSuccess(created, RULE);
      return [rawDigits(created.exchange.response!.bodyText, "data")!];
    },
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("listOrderStatusHistory", { pathParams: { orderId: id }, query: { merchantId: await ctx.resources.merchantId() } }), field: "orderId" }),
  },
];

/** The merchants the run knows: given, discovered, and those the merchant list shows. */
function knownMerchants(ctx: CheckContext): Promise<string[]> {
  return ctx.resources.once("int64.merchants", async () => {
    const listed = listedIds(await ctx.signed("listMerchants", { query: { pageNo: 1, pageSize: 100 } }));
    return [...new Set([...ctx.options.merchantIds, await ctx.resources.merchantId(), ...listed])];
  });
}

/**
 * Card template ids above 2^53 → their merchant. One list shows every template; list items do
 * not name their merchant, so merchants are listed one by one only while a large one is unplaced.
 */
function templateMerchants(ctx: CheckContext): Promise<Map<string, string>> {
  return ctx.resources.once("int64.templates", async () => {
    const large = new Set(listedIds(await ctx.signed("listCardTemplates", { query: { pageNo: 1, pageSize: 100 } })).filter((id) => BigInt(id) > SAFE));
    const found = new Map<string, string>();
    for (const merchantId of await knownMerchants(ctx)) {
      if (found.size === large.size) break;
      for (const id of listedIds(await ctx.signed("listCardTemplates", { query: { merchantId, pageNo: 1, pageSize: 100 } }))) if (large.has(id)) found.set(id, merchantId);
    }
    return found;
  });
}

interface LargeId {
  kind: IdKind;
  id: string;
}

/** Every id above 2^53 the run can see, once per run (both checks use them). */
function largeIds(ctx: CheckContext): Promise<LargeId[]> {
  return ctx.resources.once("int64.large-ids", async () => {
    const found: LargeId[] = [];
    for (const kind of KINDS) {
      const ids = new Set((await kind.discover(ctx)).filter((id) => /^\d+$/.test(id) && BigInt(id) > SAFE));
      for (const id of ids) found.push({ kind, id });
    }
    return found;
  });
}

const seenKinds = KINDS.map((k) => `${k.kind}s`).join(", ");

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
    purpose: `every id above 2^53 the run sees (${seenKinds}) is exact on the wire and accepted back unchanged`,
    rule: RULE,
    needs: ["signed"],
    async run(ctx) {
      const ids = await largeIds(ctx);
      if (ids.length === 0) throw new CheckSkipped(`none of the ids the run saw (${seenKinds}) is above 2^53; nothing large to send back`);
      for (const { kind, id } of ids) {
        const { answer, field } = await kind.sendBack(ctx, id);
        const { verdict, exchange } = answer;
        if (!verdict.success && (verdict.code === kind.notFound || verdict.code === VALIDATION)) {
          throw new CheckFailure({ message: `the ${kind.kind} id ${id} the server itself answered was refused with ${verdict.code} when sent back`, expected: `the ${kind.kind} found under its exact id`, rule: RULE, exchange });
        }
        if (verdict.success && field) {
          const back = rawDigits(exchange.response!.bodyText, field);
          if (back !== id) throw new CheckFailure({ message: `sent ${kind.kind} id ${id}, the answer's ${field} is ${back ?? "missing"}`, expected: "the exact id above 2^53", rule: RULE, exchange });
        }
      }
    },
  },
  {
    name: "int64.rounded-id-unknown",
    tags: ["int64", "signed"],
    purpose: "the double-rounded form of an id above 2^53 is another id, not found: the server does not read ids as doubles",
    rule: RULE,
    needs: ["signed"],
    async run(ctx) {
      // Only ids a double cannot hold tell a rounding server apart (even ones may round to themselves).
      const ids = (await largeIds(ctx)).filter(({ id }) => BigInt(Number(id)) !== BigInt(id));
      if (ids.length === 0) throw new CheckSkipped(`no id the run saw (${seenKinds}) changes when rounded to a double; nothing tells a rounding server apart`);
      let judged = 0;
      for (const { kind, id } of ids) {
        const rounded = BigInt(Number(id)).toString();
        const { answer, field } = await kind.sendBack(ctx, rounded, id);
        const { verdict, exchange } = answer;
        if (!verdict.success && verdict.code === kind.notFound) {
          judged += 1;
          continue;
        }
        // A record that really has the rounded id proves nothing either way.
        if (verdict.success && field && rawDigits(exchange.response!.bodyText, field) === rounded) continue;
        throw new CheckFailure({
          message: `${kind.kind} ${rounded}, the double-rounded form of ${id}, was ${verdict.success ? "found" : `refused with ${verdict.code ?? "no code"}`} instead of not found: the server reads ids through a double`,
          expected: `refusal with code ${kind.notFound} (no ${kind.kind} ${rounded})`,
          rule: RULE,
          exchange,
        });
      }
      if (judged === 0) throw new CheckSkipped("every rounded id the run tried exists on the server; nothing tells a rounding server apart");
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
