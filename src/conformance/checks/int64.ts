// int64.*: ids are handled exactly. Every kind of id the run meets (merchants, stores, card
// templates, app users, orders) that is above 2^53 must come back unchanged when sent back, and
// read back from an answer that carries it; an id that shares its double with it must not find
// it: a server that reads ids as doubles finds the same record under both, one that handles ids
// exactly does not. Nothing here depends on how a server allocates ids: a probe is judged by
// whether the answer is for the id asked for, and only "not found" or an answer for another id
// decides.
import { SignedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition, RuleBasis } from "../check.js";
import { CheckFailure, CheckSkipped, NotImplemented, type CheckFailureDetail } from "../errors.js";
import type { Answer, CheckContext } from "../context.js";
import type { Exchange } from "../http.js";

const RULE = "DESIGN item 11; signed spec, Int64Id (integer, format int64)";
const BASIS: RuleBasis[] = [{ source: "id | long | order id" }];
const SAFE = 2n ** 53n - 1n;
const VALIDATION = SignedErrors.VALIDATION_FAILED.code;
/** Fresh orders tried at most when every probe so far hit an id that really exists. */
const FRESH_ATTEMPTS = 8;
/** Ids probed at most per id that shares its double. */
const PROBES_PER_ID = 3;

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

/** An id the run saw, and the answer it came in (cited when a probe built from it fails). */
interface SeenId {
  id: string;
  madeBy?: Exchange;
}

/** An answer to an id sent back; `field` names where the answer repeats the id it is for. */
interface SentBack {
  answer: Answer;
  field?: string;
}

interface IdKind {
  kind: string;
  /** The registry code for an id of this kind that does not exist. */
  notFound: number;
  /** Ids of this kind the run can see (created by or visible to the checker's app). */
  discover(ctx: CheckContext): Promise<SeenId[]>;
  /** Sends an id back (for another id that shares its double, `of` is the id it was derived from). */
  sendBack(ctx: CheckContext, id: string, of?: string): Promise<SentBack>;
  /** Reads the id back from an answer that carries it, where sending it back answers no id. */
  readBack?(ctx: CheckContext, id: string): Promise<SentBack>;
  /** A new id of this kind, for one more probe when every probe so far found a record that exists. */
  fresh?(ctx: CheckContext): Promise<SeenId>;
}

async function newOrder(ctx: CheckContext): Promise<SeenId> {
  const created = await ctx.signed("createOrder", { body: await ctx.resources.orderBody() });
  ctx.expectSuccess(created, RULE);
  const id = rawDigits(created.exchange.response!.bodyText, "data");
  if (!id) throw new CheckFailure({ message: "createOrder's data is not a JSON integer", expected: "the new order's id as an integer", rule: RULE, exchange: created.exchange });
  return { id, madeBy: created.exchange };
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
    async discover(ctx) {
      const answer = await ctx.signed("listStores", { query: { pageNo: 1, pageSize: 100 } });
      return listedIds(answer).map((id) => ({ id, madeBy: answer.exchange }));
    },
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("getStore", { pathParams: { storeId: id } }), field: "id" }),
  },
  {
    kind: "card template",
    notFound: SignedErrors.CARD_TEMPLATE_NOT_FOUND.code,
    discover: async (ctx) => [...(await templateMerchants(ctx)).entries()].map(([id, { madeBy }]) => ({ id, madeBy })),
    // The purchase answers no template id: it must simply find the template (any answer but "not found").
    async sendBack(ctx, id, of) {
      // An id derived from a template's is asked of the merchant of that template.
      const merchantId = (await templateMerchants(ctx)).get(of ?? id)?.merchantId ?? (await ctx.resources.merchantId());
      return { answer: await ctx.signed("purchaseMemberCard", { body: { merchantId: BigInt(merchantId), templateId: BigInt(id), appUserId: await ctx.resources.appUserId() } }) };
    },
  },
  {
    kind: "app user",
    notFound: SignedErrors.CUSTOMER_NOT_FOUND.code,
    async discover(ctx) {
      const id = String(await ctx.resources.appUserId());
      return [{ id, madeBy: (await readCustomer(ctx)).answer.exchange }];
    },
    // An order for the user: the Order answers no userId, so the id is read back from customer sync.
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("createOrder", { body: { ...(await ctx.resources.orderBody()), userId: BigInt(id) } }) }),
    readBack: (ctx) => readCustomer(ctx),
  },
  {
    kind: "order",
    notFound: SignedErrors.ORDER_NOT_FOUND.code,
    discover: async (ctx) => [await newOrder(ctx)],
    sendBack: async (ctx, id) => ({ answer: await ctx.signed("getOrder", { pathParams: { orderId: id }, query: { merchantId: await ctx.resources.merchantId() } }), field: "id" }),
    fresh: newOrder,
  },
];

/** The checker's own customer synced again: customer sync is idempotent, so it answers the same appUserId. */
async function readCustomer(ctx: CheckContext): Promise<SentBack> {
  return { answer: await ctx.signed("syncCustomer", { body: ctx.resources.customerBody() }), field: "appUserId" };
}

/** The merchants the run knows: given, discovered, and those the merchant list shows. */
function knownMerchants(ctx: CheckContext): Promise<SeenId[]> {
  return ctx.resources.once("int64.merchants", async () => {
    const answer = await ctx.signed("listMerchants", { query: { pageNo: 1, pageSize: 100 } });
    const listed = listedIds(answer);
    const given = [...ctx.options.merchantIds, await ctx.resources.merchantId()];
    return [...new Set([...given, ...listed])].map((id) => (listed.includes(id) ? { id, madeBy: answer.exchange } : { id }));
  });
}

/**
 * Card template ids above 2^53 → their merchant. One list shows every template; list items do
 * not name their merchant, so merchants are listed one by one only while a large one is unplaced.
 */
function templateMerchants(ctx: CheckContext): Promise<Map<string, { merchantId: string; madeBy: Exchange }>> {
  return ctx.resources.once("int64.templates", async () => {
    const large = new Set(listedIds(await ctx.signed("listCardTemplates", { query: { pageNo: 1, pageSize: 100 } })).filter((id) => BigInt(id) > SAFE));
    const found = new Map<string, { merchantId: string; madeBy: Exchange }>();
    for (const { id: merchantId } of await knownMerchants(ctx)) {
      if (found.size === large.size) break;
      const answer = await ctx.signed("listCardTemplates", { query: { merchantId, pageNo: 1, pageSize: 100 } });
      for (const id of listedIds(answer)) if (large.has(id)) found.set(id, { merchantId, madeBy: answer.exchange });
    }
    return found;
  });
}

interface LargeId extends SeenId {
  kind: IdKind;
}

/**
 * Runs one kind's part of a check; an operation the server does not implement (100015) leaves
 * that kind out and is remembered, so a partial server is judged on the kinds it serves.
 */
async function unlessNotImplemented<T>(notImplemented: NotImplemented[], work: () => Promise<T>, otherwise: T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof NotImplemented)) throw error;
    notImplemented.push(error);
    return otherwise;
  }
}

interface LargeIds {
  ids: LargeId[];
  /** Kinds left out because an operation they need is not implemented. */
  notImplemented: NotImplemented[];
}

/** Every id above 2^53 the run can see, once per run (both checks use them). */
function largeIds(ctx: CheckContext): Promise<LargeIds> {
  return ctx.resources.once("int64.large-ids", async () => {
    const found: LargeId[] = [];
    const notImplemented: NotImplemented[] = [];
    for (const kind of KINDS) {
      const seen = new Set<string>();
      for (const entry of await unlessNotImplemented(notImplemented, () => kind.discover(ctx), [])) {
        if (!/^\d+$/.test(entry.id) || BigInt(entry.id) <= SAFE || seen.has(entry.id)) continue;
        seen.add(entry.id);
        found.push({ kind, ...entry });
      }
    }
    return { ids: found, notImplemented };
  });
}

/** Nothing could be judged: skipped, with "not implemented" as the reason when that is why. */
function nothingJudged(notImplemented: NotImplemented[], reason: string): never {
  throw notImplemented.length > 0 ? new CheckSkipped(`${reason}; ${notImplemented.map((e) => e.message).join("; ")}`) : new CheckSkipped(reason);
}

/**
 * The other int64s that a double cannot tell from `id` (the integers that round to the same
 * double): nearest first, those above `id` before the rounded form and those below, since a
 * server that counts up has issued the ones below already.
 */
export function sameDoubleIds(id: bigint, limit = PROBES_PER_ID): bigint[] {
  const double = Number(id);
  const rounded = BigInt(double);
  if (rounded === id) return [];
  // Doubles here are 2^(e-52) apart; the integers sharing one lie within half of that of it.
  const spacing = 2n ** BigInt(Math.max(0, Math.floor(Math.log2(double)) - 52));
  const above: bigint[] = [];
  const below: bigint[] = [];
  for (let step = 1n; step <= spacing; step++) {
    if (Number(id + step) === double) above.push(id + step);
    if (Number(id - step) === double) below.push(id - step);
  }
  const ordered = [...above, rounded, ...below].filter((candidate, index, all) => candidate !== id && candidate > 0n && all.indexOf(candidate) === index);
  return ordered.slice(0, limit);
}

const related = (seen: SeenId): NonNullable<CheckFailureDetail["related"]> => (seen.madeBy ? [{ label: "id made by", exchange: seen.madeBy }] : []);

/**
 * What one probe for `probe` (an id that shares its double with `seen.id`) shows: "judged" when
 * it is not found (the server told the two apart), "open" when the answer is for that very id or
 * cannot say which record it is for; a failure when it is an answer for another id.
 */
async function judgeProbe(ctx: CheckContext, kind: IdKind, seen: SeenId, probe: string): Promise<"judged" | "open"> {
  const { answer, field } = await kind.sendBack(ctx, probe, seen.id);
  const { verdict, exchange } = answer;
  const fail = (message: string): never => {
    throw new CheckFailure({ message, expected: `refusal with code ${kind.notFound} (no ${kind.kind} ${probe}), or the ${kind.kind} ${probe} itself if it exists`, rule: RULE, exchange, related: related(seen) });
  };
  if (verdict.problems.length > 0) fail(`the answer for ${kind.kind} ${probe} does not conform: ${verdict.problems.join("; ")}`);
  if (!verdict.success) {
    if (verdict.code === kind.notFound) return "judged";
    if (verdict.code === VALIDATION) fail(`${kind.kind} ${probe}, a valid int64 that a double cannot tell from ${seen.id}, was refused as invalid (100009)`);
    return "open";
  }
  if (!field) return "open";
  const answeredFor = rawDigits(exchange.response!.bodyText, field);
  if (answeredFor === probe) return "open";
  return fail(`asked for ${kind.kind} ${probe}, a different id that shares its double with ${seen.id}, the server answered ${field} ${answeredFor ?? "(none)"}: it reads ids through a double`);
}

const seenKinds = KINDS.map((k) => `${k.kind}s`).join(", ");

export const int64Checks: CheckDefinition[] = [
  {
    name: "int64.order-id-round-trip",
    tags: ["int64", "signed"],
    purpose: "a new order's id, sent back digit for digit, finds the order with the same id",
    rule: RULE,
    basis: BASIS,
    needs: ["signed"],
    async run(ctx) {
      const order = await newOrder(ctx);
      const fetched = await ctx.signed("getOrder", { pathParams: { orderId: order.id }, query: { merchantId: await ctx.resources.merchantId() } });
      ctx.expectSuccess(fetched, RULE);
      const back = rawDigits(fetched.exchange.response!.bodyText, "id");
      if (back !== order.id) throw new CheckFailure({ message: `asked for order ${order.id}, got order ${back}`, expected: "the same digits", rule: RULE, exchange: fetched.exchange, related: related(order) });
    },
  },
  {
    name: "int64.above-2^53",
    tags: ["int64", "signed"],
    purpose: `every id above 2^53 the run sees (${seenKinds}) is exact on the wire, accepted back unchanged, and read back from an answer that carries it`,
    rule: RULE,
    basis: BASIS,
    needs: ["signed"],
    async run(ctx) {
      const { ids, notImplemented } = await largeIds(ctx);
      let judged = 0;
      for (const seen of ids) {
        const { kind, id } = seen;
        const answers = await unlessNotImplemented(notImplemented, async () => [await kind.sendBack(ctx, id), ...(kind.readBack ? [await kind.readBack(ctx, id)] : [])], []);
        if (answers.length > 0) judged += 1;
        for (const { answer, field } of answers) {
          const { verdict, exchange } = answer;
          if (!verdict.success && (verdict.code === kind.notFound || verdict.code === VALIDATION)) {
            throw new CheckFailure({ message: `the ${kind.kind} id ${id} the server itself answered was refused with ${verdict.code} when sent back`, expected: `the ${kind.kind} found under its exact id`, rule: RULE, exchange, related: related(seen) });
          }
          if (verdict.success && field) {
            const back = rawDigits(exchange.response!.bodyText, field);
            if (back !== id) throw new CheckFailure({ message: `sent ${kind.kind} id ${id}, the answer's ${field} is ${back ?? "missing"}`, expected: "the exact id above 2^53", rule: RULE, exchange, related: related(seen) });
          }
        }
      }
      if (judged === 0) nothingJudged(notImplemented, `none of the ids the run saw (${seenKinds}) is above 2^53; nothing large to send back`);
    },
  },
  {
    name: "int64.rounded-id-unknown",
    tags: ["int64", "signed"],
    purpose: "an id that shares its double with an id above 2^53 does not find that record: the server does not read ids as doubles",
    rule: RULE,
    basis: BASIS,
    needs: ["signed"],
    async run(ctx) {
      // Only ids a double cannot hold tell a rounding server apart (even ones may round to themselves).
      const { ids: all, notImplemented } = await largeIds(ctx);
      const ids = all.filter(({ id }) => sameDoubleIds(BigInt(id)).length > 0);
      if (ids.length === 0) nothingJudged(notImplemented, `no id the run saw (${seenKinds}) changes when rounded to a double; nothing tells a rounding server apart`);
      let judged = 0;
      const probeAll = async (kind: IdKind, seen: SeenId) => {
        for (const probe of sameDoubleIds(BigInt(seen.id))) {
          if ((await unlessNotImplemented(notImplemented, () => judgeProbe(ctx, kind, seen, String(probe)), "open" as const)) === "judged") judged += 1;
        }
      };
      for (const seen of ids) await probeAll(seen.kind, seen);
      // Every id probed exists (a server that counts up has issued the neighbours): new orders
      // until one has a neighbour that does not exist yet.
      for (const kind of KINDS.filter((k) => k.fresh)) {
        for (let attempt = 0; judged === 0 && attempt < FRESH_ATTEMPTS; attempt++) {
          const seen = await unlessNotImplemented(notImplemented, () => kind.fresh!(ctx), undefined);
          if (!seen) break;
          await probeAll(kind, seen);
        }
      }
      if (judged === 0) nothingJudged(notImplemented, "every id probed that shares a double with an id above 2^53 exists on the server, or the answers do not say which record they are for; nothing tells a rounding server apart");
    },
  },
  {
    name: "int64.largest-id",
    tags: ["int64", "signed"],
    purpose: "the largest int64 (9223372036854775807) is a valid id that is simply not found; one more is a validation error",
    rule: RULE,
    basis: BASIS,
    needs: ["signed"],
    async run(ctx) {
      const merchantId = await ctx.resources.merchantId();
      ctx.expectRefused(await ctx.signed("getOrder", { pathParams: { orderId: "9223372036854775807" }, query: { merchantId } }), SignedErrors.ORDER_NOT_FOUND.code, RULE, "an unknown order with the largest int64 id");
      ctx.expectRefused(await ctx.signed("getOrder", { pathParams: { orderId: "9223372036854775808" }, query: { merchantId }, invalidPath: true }), SignedErrors.VALIDATION_FAILED.code, RULE, "an order id beyond int64");
    },
  },
];
