// One row per rule and limit of the source document: a value just inside the bound is accepted
// and one just outside is refused by the bundled schema. Every row of the source's Limits
// table has a row here (checked below).
import { describe, expect, it } from "vitest";
import { sourceLimits } from "./source-document.js";
import { deref, loadBundledSpec, pointerSegment, schemaValidator, type Spec } from "./spec-loader.js";

const specs = { signed: loadBundledSpec("signed"), keyed: loadBundledSpec("keyed") };
const validators = {
  signed: schemaValidator(specs.signed, "https://merchant-open-platform.test/signed.json"),
  keyed: schemaValidator(specs.keyed, "https://merchant-open-platform.test/keyed.json"),
};

type Variant = keyof typeof specs;
type Target =
  | { kind: "body"; path: string; method: string }
  | { kind: "param"; path: string; method: string; name: string }
  | { kind: "schema"; name: string }
  | { kind: "response"; path: string; method: string };

function pointerOf(variant: Variant, target: Target): string {
  const spec: Spec = specs[variant];
  const op = (t: { path: string; method: string }) => `/paths/${pointerSegment(t.path)}/${t.method}`;
  switch (target.kind) {
    case "body":
      return `${op(target)}/requestBody/content/application~1json/schema`;
    case "response":
      return `${op(target)}/responses/200/content/application~1json/schema`;
    case "schema":
      return `/components/schemas/${target.name}`;
    case "param": {
      const params: any[] = spec.paths[target.path][target.method].parameters;
      const index = params.findIndex((p) => deref(spec, p).name === target.name);
      const ref = params[index].$ref as string | undefined;
      return ref ? `${ref.slice(1)}/schema` : `${op(target)}/parameters/${index}/schema`;
    }
  }
}

function exampleOf(variant: Variant, target: Target): any {
  const spec: Spec = specs[variant];
  const operation = "path" in target ? spec.paths[target.path][target.method] : undefined;
  const media = target.kind === "body" ? operation.requestBody.content["application/json"] : operation?.responses["200"].content["application/json"];
  return structuredClone(Object.values<any>(media.examples)[0].value);
}

interface Row {
  variant: Variant;
  target: Target;
  /** The source Limits-table row this covers, if any. */
  limit?: string;
  inside: unknown;
  outside: unknown;
}

const cashier: Target = { kind: "body", path: "/payment/cashier/create", method: "post" };
const order: Target = { kind: "body", path: "/orders", method: "post" };
const cashierWith = (patch: object) => ({ ...exampleOf("signed", cashier), ...patch });
const orderWith = (patch: object) => ({ ...exampleOf("signed", order), ...patch });
const orderLine = (patch: object) => orderWith({ items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1, ...patch }] });
const param = (path: string, name: string, variant: Variant = "signed"): [Variant, Target] => [variant, { kind: "param", path, method: "get", name }];
const orderDetail = (patch: object) => {
  const envelope = exampleOf("signed", { kind: "response", path: "/orders/{orderId}", method: "get" });
  return { ...envelope, data: { ...envelope.data, ...patch } };
};
const tradeDetail = (patch: object) => {
  const envelope = exampleOf("signed", { kind: "response", path: "/payment/query", method: "get" });
  return { ...envelope, data: { ...envelope.data, ...patch } };
};
const chars = (n: number, char = "字") => char.repeat(n);
const row = ([variant, target]: [Variant, Target], rest: Omit<Row, "variant" | "target">): Row => ({ variant, target, ...rest });

const rows: Array<[string, Row]> = [
  // The Limits table.
  ["signed merchant list pageSize is at most 100", row(param("/merchants", "pageSize"), { limit: "pageSize maximum", inside: 100, outside: 101 })],
  ["store list pageSize is at most 100", row(param("/stores", "pageSize"), { limit: "pageSize maximum", inside: 100, outside: 101 })],
  ["key-based list limit is at most 100", row(param("/merchants", "limit", "keyed"), { limit: "limit maximum", inside: 100, outside: 101 })],
  ["card-template pageSize is at most 100 (designed)", row(param("/card-templates", "pageSize"), { inside: 100, outside: 101 })],
  ["page size is at least 1 (designed)", row(param("/stores", "pageSize"), { inside: 1, outside: 0 })],
  ["page number is at least 1 (designed)", row(param("/merchants", "pageNo"), { limit: "default page number", inside: 1, outside: 0 })],
  ["key-based page is at least 1", row(param("/merchants", "page", "keyed"), { limit: "default page number", inside: 1, outside: 0 })],
  ["subject is at most 32 characters (code points, not bytes)", row(["signed", cashier], { limit: "subject length", inside: cashierWith({ subject: chars(32) }), outside: cashierWith({ subject: chars(33) }) })],
  ["body is at most 128 characters", row(["signed", cashier], { limit: "body length", inside: cashierWith({ body: chars(128, "a") }), outside: cashierWith({ body: chars(129, "a") }) })],
  ["attach is at most 512 characters", row(["signed", cashier], { limit: "attach length", inside: cashierWith({ attach: chars(512, "x") }), outside: cashierWith({ attach: chars(513, "x") }) })],
  ["cashier totalAmount is greater than 0", row(["signed", cashier], { limit: "totalAmount", inside: cashierWith({ totalAmount: 1 }), outside: cashierWith({ totalAmount: 0 }) })],
  ["notifyUrl must be HTTPS", row(["signed", cashier], { limit: "notifyUrl", inside: cashierWith({ notifyUrl: "https://a.example/cb" }), outside: cashierWith({ notifyUrl: "http://a.example/cb" }) })],
  ["outTradeNo is required (the idempotency key)", row(["signed", cashier], { limit: "outTradeNo", inside: cashierWith({}), outside: (({ outTradeNo: _omit, ...rest }) => rest)(cashierWith({})) })],
  ["items must not be empty", row(["signed", order], { limit: "items", inside: orderLine({}), outside: orderWith({ items: [] }) })],
  ["items[].price must not be negative", row(["signed", order], { limit: "items[].price", inside: orderLine({ price: 0 }), outside: orderLine({ price: -1 }) })],
  ["items[].quantity is greater than 0", row(["signed", order], { limit: "items[].quantity", inside: orderLine({ quantity: 1 }), outside: orderLine({ quantity: 0 }) })],
  ["at most 100 order lines (designed)", row(["signed", order], { inside: orderWith({ items: Array(100).fill(orderLine({}).items[0]) }), outside: orderWith({ items: Array(101).fill(orderLine({}).items[0]) }) })],
  // Field rules and enums.
  ["orderType is 1 to 4", row(["signed", order], { inside: orderWith({ orderType: 4 }), outside: orderWith({ orderType: 5 }) })],
  ["itemType is 1 to 4", row(["signed", order], { inside: orderLine({ itemType: 4 }), outside: orderLine({ itemType: 0 }) })],
  ["userId is required", row(["signed", order], { inside: orderWith({}), outside: (({ userId: _omit, ...rest }) => rest)(orderWith({})) })],
  ["merchantId is an int64 id (positive integer)", row(["signed", order], { inside: orderWith({ merchantId: Number.MAX_SAFE_INTEGER }), outside: orderWith({ merchantId: 1.5 }) })],
  ["voucherIds is a JSON array carried as a string", row(["signed", order], { inside: orderWith({ voucherIds: "[7001, 7002]" }), outside: orderWith({ voucherIds: "7001,7002" }) })],
  ["fields the source does not list are refused (additionalProperties: false)", row(["signed", order], { inside: orderWith({}), outside: orderWith({ totalAmount: 100 }) })],
  ["expireMinutes is a positive integer", row(["signed", cashier], { inside: cashierWith({ expireMinutes: 1 }), outside: cashierWith({ expireMinutes: 0 }) })],
  ["tradeNo is sent as a string of digits", row(param("/payment/query", "tradeNo"), { inside: "2026112210153000001", outside: "T-1" })],
  ["getOrder merchantId is an int64 id", row(param("/orders/{orderId}", "merchantId"), { inside: 1, outside: 0 })],
  ["merchant list status filter is 0, 1 or 2", row(param("/merchants", "status"), { inside: 2, outside: 3 })],
  ["key-based status filter is active, inactive or pending", row(param("/merchants", "status", "keyed"), { inside: "pending", outside: "deleted" })],
  ["order status is 0 to 5", row(["signed", { kind: "schema", name: "OrderStatus" }], { inside: 5, outside: 6 })],
  ["tradeStatus is one of the five trade statuses", row(["signed", { kind: "schema", name: "TradeStatus" }], { inside: "UNKNOWN", outside: "PAID" })],
  ["cardType is 0, 1 or 2", row(["signed", { kind: "schema", name: "CardType" }], { inside: 2, outside: 3 })],
  ["store status is 0 or 1", row(["signed", { kind: "schema", name: "StoreStatus" }], { inside: 1, outside: 2 })],
  ["merchant item status is 0 or 1", row(["signed", { kind: "response", path: "/merchants", method: "get" }], {
    inside: exampleOf("signed", { kind: "response", path: "/merchants", method: "get" }),
    outside: (() => { const e = exampleOf("signed", { kind: "response", path: "/merchants", method: "get" }); e.data.list[0].status = 2; return e; })(),
  })],
  ["resultType is 1 or 2", row(["signed", { kind: "schema", name: "MemberCardPurchaseResult" }], { inside: { resultType: 2, id: 1 }, outside: { resultType: 3, id: 1 } })],
  ["completeTime is null when the order is not completed", row(["signed", { kind: "response", path: "/orders/{orderId}", method: "get" }], { inside: orderDetail({ status: 1, payTime: "2026-11-22T10:17:02+08:00", completeTime: null }), outside: orderDetail({ status: 1, payTime: "2026-11-22T10:17:02+08:00", completeTime: "2026-11-22T11:00:00+08:00" }) })],
  ["payTime has a value only when tradeStatus is SUCCESS", row(["signed", { kind: "response", path: "/payment/query", method: "get" }], { inside: tradeDetail({ tradeStatus: "SUCCESS", payTime: "2026-11-22T10:17:02+08:00" }), outside: tradeDetail({ tradeStatus: "WAIT_BUYER_PAY", payTime: "2026-11-22T10:17:02+08:00" }) })],
  ["attach is null when none was given", row(["signed", { kind: "response", path: "/payment/query", method: "get" }], { inside: tradeDetail({ attach: null }), outside: tradeDetail({ attach: 42 }) })],
  ["timestamps carry a UTC offset", row(["signed", { kind: "schema", name: "DateTime" }], { inside: "2026-11-22T10:15:30+08:00", outside: "2026-11-22T10:15:30" })],
  ["merchant detail phone is masked", row(["signed", { kind: "schema", name: "MerchantDetail" }], {
    inside: exampleOf("signed", { kind: "response", path: "/merchants/{merchantId}", method: "get" }).data,
    outside: { ...exampleOf("signed", { kind: "response", path: "/merchants/{merchantId}", method: "get" }).data, contactPhone: "13800138000" },
  })],
  ["signed success envelope has code 0 and msg success", row(["signed", { kind: "response", path: "/orders", method: "post" }], { inside: { code: 0, msg: "success", data: 1 }, outside: { code: 200, msg: "success", data: 1 } })],
  ["key-based envelope has code 200 and string ids", row(["keyed", { kind: "response", path: "/merchants", method: "get" }], {
    inside: exampleOf("keyed", { kind: "response", path: "/merchants", method: "get" }),
    outside: (() => { const e = exampleOf("keyed", { kind: "response", path: "/merchants", method: "get" }); e.data.merchants[0].id = 10001; return e; })(),
  })],
];

describe("limits and rules of the source document", () => {
  it.each(rows)("%s", (_name, { variant, target, inside, outside }) => {
    const validate = validators[variant](pointerOf(variant, target));
    expect(validate(inside), `inside value refused: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(validate(outside), "outside value accepted").toBe(false);
  });

  it("covers every row of the source's Limits table", () => {
    const covered = new Set(rows.map(([, r]) => r.limit).filter(Boolean));
    const notCovered = sourceLimits().map((limitRow) => limitRow[0]).filter((name) => !covered.has(name) && !defaultsOnly.has(name!));
    expect(notCovered).toEqual([]);
  });

  // Rows of the Limits table that are defaults rather than bounds: checked as defaults.
  const defaultsOnly = new Set(["default page size", "expireMinutes default"]);
  it.each([
    ["signed", "/merchants", "pageSize", 10],
    ["signed", "/stores", "pageSize", 10],
    ["signed", "/card-templates", "pageSize", 10],
    ["signed", "/stores/nearby", "pageSize", 10],
    ["keyed", "/merchants", "limit", 20],
    ["signed", "/merchants", "pageNo", 1],
    ["signed", "/stores", "pageNo", 1],
    ["signed", "/card-templates", "pageNo", 1],
    ["keyed", "/merchants", "page", 1],
  ] as const)("default page size / number: %s %s %s defaults to %d", (variant, path, name, expected) => {
    const spec = specs[variant];
    const parameter = spec.paths[path].get.parameters.map((p: unknown) => deref(spec, p)).find((p: any) => p.name === name);
    expect(deref(spec, parameter.schema).default).toBe(expected);
  });

  it("expireMinutes defaults to 30", () => {
    const schema = deref(specs.signed, specs.signed.components.schemas.CreateCashierSessionRequest);
    expect(schema.properties.expireMinutes.default).toBe(30);
  });
});
