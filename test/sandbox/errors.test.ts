// Every error code of the registry that the sandbox can produce, each from a request that
// produces it: the envelope code, the HTTP status of the registry, a message naming the field
// or header at fault, data null, and an envelope that fits the spec's ErrorEnvelope.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { parseJsonLossless } from "../../src/json/index.js";
import { defaultFixturesText } from "../../src/sandbox/index.js";
import { BASIC, DEMO_USER, errorEnvelopeErrors, startSandbox, type Answer, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

type Name = keyof typeof SignedErrors;

function expectError(answer: Answer, name: Name, mentions: RegExp) {
  const entry = SignedErrors[name];
  expect(answer.json?.code, answer.text).toBe(entry.code);
  expect(answer.status, answer.text).toBe(entry.http);
  expect(answer.json.data).toBeNull();
  expect(answer.json.msg).toMatch(mentions);
  // The control API's own codes are in the control spec only.
  expect(errorEnvelopeErrors(answer.json, entry.appliesTo === "control" ? "sandbox-control" : "signed")).toEqual([]);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
}

async function paidOrder(orderType = 1): Promise<{ id: bigint; tradeNo: string }> {
  const id = await sb.createOrder({ orderType });
  const { tradeNo } = (await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } })).json.data;
  await sb.control("POST", `/trades/${tradeNo}/pay`);
  return { id, tradeNo };
}

const item = { itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 };

const cases: [Name, () => Promise<Answer>, RegExp][] = [
  ["SIGNATURE_HEADER_MISSING", () => sb.signed({ path: "/merchants", headers: { "X-Nonce": null } }), /X-Nonce/],
  ["APP_KEY_UNKNOWN", () => sb.signed({ path: "/merchants", app: { appKey: "nobody", appSecret: "x" } }), /X-App-Key "nobody"/],
  ["SIGNATURE_MISMATCH", () => sb.signed({ path: "/merchants", app: { appKey: "demo-app-key", appSecret: "wrong" } }), /X-Sign/],
  ["TIMESTAMP_OUT_OF_WINDOW", () => sb.signed({ path: "/merchants", timestamp: String(Math.floor(sb.sandbox.clock.now() / 1000) - 301) }), /X-Timestamp/],
  [
    "NONCE_REUSED",
    async () => {
      await sb.signed({ path: "/merchants", nonce: "nonce-used-twice" });
      return sb.signed({ path: "/merchants", nonce: "nonce-used-twice" });
    },
    /X-Nonce "nonce-used-twice"/,
  ],
  ["MERCHANT_MODULE_FORBIDDEN", () => sb.signed({ path: "/merchants", app: BASIC }), /merchant module/],
  ["MERCHANT_DATA_FORBIDDEN", () => sb.signed({ path: "/merchants/10004" }), /merchantId 10004/],
  ["VALIDATION_FAILED", () => sb.signed({ path: "/merchants?pageSize=101" }), /query\.pageSize must be <= 100/],
  ["TIMESTAMP_MALFORMED", () => sb.signed({ path: "/merchants", headers: { "X-Timestamp": String(sb.sandbox.clock.now()) } }), /X-Timestamp .*milliseconds/],
  ["NONCE_MALFORMED", () => sb.signed({ path: "/merchants", headers: { "X-Nonce": "short" } }), /X-Nonce/],
  ["SIGNATURE_MALFORMED", () => sb.signed({ path: "/merchants", headers: { "X-Sign": "a".repeat(64) } }), /X-Sign .*hex/],
  ["BODY_TOO_LARGE", () => sb.signed({ path: "/customers/sync", body: `{"openUserId":"${"x".repeat(1024 * 1024)}"}` }), /1 MiB/],
  ["UNSUPPORTED_MEDIA_TYPE", () => sb.signed({ path: "/customers/sync", body: '{"openUserId":"a"}', contentType: "text/plain" }), /Content-Type: application\/json/],
  ["PATH_NOT_FOUND", () => sb.signed({ path: "/orders/1/ship" }), /path/],
  ["METHOD_NOT_ALLOWED", () => sb.signed({ method: "DELETE", path: "/merchants" }), /DELETE.*allowed: GET/],
  ["MERCHANT_NOT_FOUND", () => sb.signed({ path: "/merchants/99999" }), /merchantId 99999/],
  ["MERCHANT_OFFLINE", () => sb.signed({ path: "/merchants/10003" }), /merchantId 10003.*offline/],
  ["STORE_NOT_FOUND", () => sb.signed({ path: "/orders", body: { merchantId: 10001, storeId: 20003, userId: DEMO_USER, orderType: 1, items: [item] } }), /storeId 20003/],
  ["STORE_DISABLED", () => sb.signed({ path: "/orders", body: { merchantId: 10001, storeId: 20002, userId: DEMO_USER, orderType: 1, items: [item] } }), /storeId 20002.*disabled/],
  ["CUSTOMER_NOT_FOUND", () => sb.signed({ path: "/orders", body: { merchantId: 10001, userId: 12345, orderType: 1, items: [item] } }), /userId 12345/],
  ["ORDER_NOT_FOUND", () => sb.signed({ path: "/orders/9007199254741999?merchantId=10001" }), /orderId 9007199254741999/],
  [
    "ORDER_NOT_PENDING_PAYMENT",
    async () => {
      const { id } = await paidOrder();
      return sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } });
    },
    /orderId \d+ is in status 1/,
  ],
  [
    "ORDER_NOT_CANCELLABLE",
    async () => {
      const { id } = await paidOrder();
      return sb.signed({ path: `/orders/${id}/cancel`, body: { merchantId: 10001 } });
    },
    /orderId \d+ is in status 1/,
  ],
  ["ORDER_NOT_REFUNDABLE", async () => sb.signed({ path: `/orders/${await sb.createOrder()}/refund?merchantId=10001`, body: { reason: "x" } }), /orderId \d+ is in status 0/],
  [
    "ORDER_NOT_SERVICE_TYPE",
    async () => {
      const { id } = await paidOrder(1);
      return sb.signed({ method: "POST", path: `/orders/${id}/write-off?merchantId=10001` });
    },
    /orderType 1/,
  ],
  ["ORDER_NOT_WRITE_OFFABLE", async () => sb.signed({ method: "POST", path: `/orders/${await sb.createOrder({ orderType: 3 })}/write-off?merchantId=10001` }), /status 0/],
  ["ORDER_ZERO_AMOUNT", async () => sb.signed({ path: `/orders/${await sb.createOrder({ price: 0 })}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } }), /orderId \d+ has totalAmount 0/],
  [
    "OUT_REFUND_NO_CONFLICT",
    async () => {
      const { id } = await paidOrder();
      await sb.signed({ path: `/orders/${id}/refund?merchantId=10001`, body: { reason: "x", outRefundNo: "conflict-r1" } });
      return sb.signed({ path: `/orders/${id}/refund?merchantId=10001`, body: { reason: "y", outRefundNo: "conflict-r1" } });
    },
    /outRefundNo "conflict-r1".*reason/,
  ],
  ["ORDER_AMOUNT_OUT_OF_RANGE", () => sb.signed({ path: "/orders", body: { merchantId: 10001, userId: DEMO_USER, orderType: 1, items: [{ ...item, price: 2147483647, quantity: 2 }] } }), /items.*4294967294/],
  ["TRADE_NOT_FOUND", () => sb.signed({ path: "/payment/query?tradeNo=1234567890" }), /tradeNo 1234567890/],
  [
    "OUT_TRADE_NO_CONFLICT",
    async () => {
      await sb.createTrade({ outTradeNo: "conflict-1" });
      return sb.signed({ path: "/payment/cashier/create", body: { merchantId: 10001, outTradeNo: "conflict-1", totalAmount: 1, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" } });
    },
    /outTradeNo "conflict-1".*totalAmount/,
  ],
  [
    "TRADE_NOT_PAYABLE",
    async () => {
      const { tradeNo } = await sb.createTrade();
      await sb.control("POST", `/trades/${tradeNo}/close`);
      return sb.control("POST", `/trades/${tradeNo}/pay`);
    },
    /tradeNo \d+ is not waiting for payment: it is CLOSED/,
  ],
  ["CARD_TEMPLATE_NOT_FOUND", () => sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60005, appUserId: DEMO_USER } }), /templateId 60005/],
  ["CARD_TIER_NOT_FOUND", () => sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60001, appUserId: DEMO_USER, tierId: 99 } }), /tierId 99/],
  ["CARD_TIER_NOT_APPLICABLE", () => sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60002, appUserId: DEMO_USER, tierId: 61001 } }), /tierId.*cardType 1/],
  ["ORDER_SERVICE_NOT_STARTABLE", async () => sb.control("POST", `/orders/${await sb.createOrder({ orderType: 3 })}/start-service`), /status 0/],
  ["CREDIT_APPLICATION_NOT_FOUND", () => sb.control("POST", "/member-card-applications/42/approve"), /applicationId 42/],
  [
    "CREDIT_APPLICATION_NOT_PENDING",
    async () => {
      const { id } = (await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60004, appUserId: DEMO_USER } })).json.data;
      await sb.control("POST", `/member-card-applications/${id}/approve`);
      return sb.control("POST", `/member-card-applications/${id}/reject`, { reason: "too late" });
    },
    /applicationId \d+ was already approved/,
  ],
  ["REQUEST_SITE_REFUSED", () => sb.raw("/sandbox/reset", { method: "POST", headers: { Origin: "https://evil.example", "Content-Type": "application/json" } }), /another origin is refused \(Origin: https:\/\/evil\.example\)/],
  [
    "APP_QUOTA_EXCEEDED",
    async () => {
      const small = await startSandbox({ quotas: { maxOrdersPerApp: 1 } });
      try {
        await small.createOrder();
        return await small.signed({ path: "/orders", body: { merchantId: 10001, userId: DEMO_USER, orderType: 1, items: [item] } });
      } finally {
        await small.close();
      }
    },
    /already has 1 orders/,
  ],
];

describe("every registry code the sandbox produces", () => {
  it.each(cases)("%s", async (name, request, mentions) => {
    expectError(await request(), name, mentions);
  });

  it("RATE_LIMITED: an app over its rate limit gets 100006 with Retry-After", async () => {
    const fixtures = parseJsonLossless(defaultFixturesText()) as { apps: { rateLimitPerSecond?: number }[] };
    fixtures.apps[0]!.rateLimitPerSecond = 2;
    const limited = await startSandbox({ fixtures });
    try {
      expect((await limited.signed({ path: "/merchants" })).status).toBe(200);
      expect((await limited.signed({ path: "/merchants" })).status).toBe(200);
      const refused = await limited.signed({ path: "/merchants" });
      expectError(refused, "RATE_LIMITED", /at most 2 per second/);
      expect(refused.headers.get("retry-after")).toBe("1");
      limited.sandbox.clock.advance(1000);
      expect((await limited.signed({ path: "/merchants" })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("covers every code of the registry except the internal error (see response-validation.test.ts)", () => {
    const covered = new Set<string>([...cases.map(([name]) => name), "RATE_LIMITED", "INTERNAL_ERROR"]);
    expect(Object.keys(SignedErrors).filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe("validation messages", () => {
  it("name every failing field and why", async () => {
    const answer = await sb.signed({
      path: "/payment/cashier/create",
      body: { merchantId: 10001, outTradeNo: "ok", totalAmount: 0, subject: "x".repeat(33), notifyUrl: "https://a.example/cb", colour: "red" },
    });
    expectError(answer, "VALIDATION_FAILED", /body\.totalAmount must be >= 1/);
    expect(answer.json.msg).toContain("body.subject must NOT have more than 32 characters");
    expect(answer.json.msg).toContain("body.colour is not allowed");
  });

  it("name missing required fields and nested array items", async () => {
    const answer = await sb.signed({ path: "/orders", body: { merchantId: 10001, orderType: 1, items: [{ itemType: 9, itemId: 1, itemName: "", price: -1, quantity: 0 }] } });
    expect(answer.json.code).toBe(100009);
    for (const part of ["body.userId is required", "body.items[0].itemType", "body.items[0].itemName", "body.items[0].price must be >= 0", "body.items[0].quantity must be >= 1"]) {
      expect(answer.json.msg).toContain(part);
    }
  });

  it("name the position of malformed JSON", async () => {
    const answer = await sb.signed({ path: "/customers/sync", body: '{"openUserId": "a",}' });
    expectError(answer, "VALIDATION_FAILED", /body is not valid JSON: .*position 19/);
  });

  it("refuse an int64 above 2^63 - 1 in a body, a path and a query", async () => {
    expectError(await sb.signed({ path: "/orders", body: `{"merchantId":9223372036854775808,"userId":1,"orderType":1,"items":[{"itemType":1,"itemId":1,"itemName":"x","price":1,"quantity":1}]}` }), "VALIDATION_FAILED", /body\.merchantId must be <= 9223372036854775807/);
    expectError(await sb.signed({ path: "/orders/9223372036854775808?merchantId=10001" }), "VALIDATION_FAILED", /path\.orderId/);
    expectError(await sb.signed({ path: "/stores?merchantId=0x10" }), "VALIDATION_FAILED", /query\.merchantId must be a positive decimal integer/);
  });

  it("refuse a malformed percent-encoding in the path", async () => {
    expectError(await sb.signed({ path: "/orders/%E0%A4%A?merchantId=10001" }), "VALIDATION_FAILED", /path is malformed/);
  });

  it("refuse a POST without a body as a missing body, not a media-type problem", async () => {
    expectError(await sb.signed({ method: "POST", path: "/customers/sync" }), "VALIDATION_FAILED", /body is required/);
  });
});
