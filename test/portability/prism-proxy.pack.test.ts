// Prism as an outside judge: Stoplight Prism's validating proxy (`prism proxy --errors`, pinned in
// package.json) sits in front of the sandbox (safe ids, so Prism's JSON.parse cannot round them)
// while the package's own clients walk every operation of both interfaces, the error cases
// included: signature failures, permissions and foreign merchants, unknown resources, state
// conflicts and validation errors the spec cannot express. Prism must forward every answer and
// report zero violations. Requests the spec itself forbids (a missing header, a body breaking a
// schema) never reach a server behind `--errors`: Prism refuses them itself, which the walk
// checks too, and a second Prism without `--errors` forwards them so the sandbox's refusals are
// judged as well. A canary upstream answer that breaks the spec proves the judge can fail.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, createKeyedClient, createSignedClient, type FetchLike, type SignedClient } from "../../src/client/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { startPrismProxy, type PrismProxy } from "./prism-process.js";

const DEMO = { appKey: "demo-app-key", appSecret: "demo-app-secret" } as const;
const BASIC = { appKey: "basic-app-key", appSecret: "basic-app-secret" } as const;
const TWO_53 = 2n ** 53n;
const CANARY_HEADER = "x-test-canary";

interface Exchange {
  via: string;
  method: string;
  path: string;
  status: number;
  contentType: string;
  violations: string | null;
  body: string;
}

const exchanges: Exchange[] = [];
let sandbox: Sandbox;
let listening: ListeningSandbox;
let upstream: Server;
let receiver: Server;
let receiverUrl: string;
let strict: PrismProxy;
let lenient: PrismProxy;
let keyedPrism: PrismProxy;

/**
 * Prism serves the spec's paths at its root while the client's base URL ends in /open-api/v1:
 * this fetch drops that prefix (and records every exchange for the verdict).
 */
function viaPrism(origin: string, prefix: string, via: string): FetchLike {
  return async (request) => {
    const url = new URL(request.url);
    const target = new URL(`${origin}${url.pathname.slice(prefix.length)}${url.search}`);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : Buffer.from(await request.arrayBuffer());
    const response = await fetch(target, { method: request.method, headers: request.headers, body, signal: request.signal });
    const text = await response.text();
    exchanges.push({
      via,
      method: request.method,
      path: `${target.pathname}${target.search}`,
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      violations: response.headers.get("sl-violations"),
      body: text,
    });
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

/** The upstream Prism forwards to: a byte-for-byte pipe to the sandbox, except for canary requests. */
function startUpstream(target: URL): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.headers[CANARY_HEADER] === "broken") {
      req.resume();
      // A getMerchant answer that breaks the spec: the id is a string, required fields are missing.
      res.writeHead(200, { "content-type": "application/json" }).end('{"code":0,"msg":"success","data":{"id":"ten-thousand-and-one"}}');
      return;
    }
    const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function signedClient(prism: PrismProxy, via: string, overrides: Partial<Parameters<typeof createSignedClient>[0]> = {}): SignedClient {
  return createSignedClient({ baseUrl: `${prism.origin}/open-api/v1`, ...DEMO, retry: false, fetch: viaPrism(prism.origin, "/open-api/v1", via), ...overrides });
}

/** The error an API call rejects with; fails the test when it succeeds. */
async function refusal(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("the call succeeded but a refusal was expected");
}

beforeAll(async () => {
  sandbox = createSandbox({ idRange: "safe", allowInsecureNotify: true, callbackSchedule: [100, 100] });
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  await sandbox.ready();
  upstream = await startUpstream(new URL(listening.url));
  receiver = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" }).end("success");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()));
  // The spec demands https; delivery to this plain-HTTP receiver fails, which is fine here.
  receiverUrl = `${urlOf(receiver).replace("http:", "https:")}/payment-callbacks`;
  // Three Prisms side by side: they take seconds each to compile the spec.
  [strict, lenient, keyedPrism] = await Promise.all([
    startPrismProxy({ spec: "signed", upstream: `${urlOf(upstream)}/open-api/v1`, errors: true }),
    startPrismProxy({ spec: "signed", upstream: `${urlOf(upstream)}/open-api/v1`, errors: false }),
    startPrismProxy({ spec: "keyed", upstream: `${urlOf(upstream)}/v1`, errors: true }),
  ]);
  console.log(`Prism start-up (ms): strict ${strict.startMs}, lenient ${lenient.startMs}, keyed ${keyedPrism.startMs}`);
}, 180_000);

afterAll(async () => {
  await Promise.all([strict?.stop(), lenient?.stop(), keyedPrism?.stop()]);
  await sandbox?.close();
  await Promise.all([upstream, receiver].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))));
});

/** Every operationId of a bundled spec. */
function operationIds(spec: "signed" | "keyed"): string[] {
  const document = JSON.parse(readFileSync(join(packageRoot(), "generated", `${spec}.openapi.json`), "utf8")) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => (typeof op === "object" && op?.operationId ? [op.operationId] : [])));
}

/** Pays a trade through the control API, straight to the sandbox (the control API is not public). */
async function payThroughControl(tradeNo: string): Promise<void> {
  const answer = await fetch(`${listening.url}/sandbox/trades/${tradeNo}/pay`, { method: "POST", headers: { "Content-Type": "application/json" } });
  expect(answer.status, await answer.clone().text()).toBe(200);
}

describe("prism proxy --errors in front of the sandbox (--id-range safe)", () => {
  const walked = new Set<string>();
  const codes = new Map<string, number[]>();
  const note = (operationId: string, code: number) => {
    walked.add(operationId);
    codes.set(operationId, [...(codes.get(operationId) ?? []), code]);
  };

  it("forwards the whole signed interface, success and error answers alike, with zero violations", async () => {
    const client = signedClient(strict, "strict");
    const ok = async <T,>(operationId: string, call: Promise<T>): Promise<T> => {
      const data = await call;
      note(operationId, 0);
      return data;
    };
    const refused = async (operationId: string, call: Promise<unknown>, code: number) => {
      const error = await refusal(call);
      expect(error.code, `${operationId}: ${error.message}`).toBe(code);
      note(operationId, code);
    };

    // Reading: merchants, stores, card templates.
    await ok("listMerchants", client.call("listMerchants", { params: { query: { pageNo: 1, pageSize: 20 } } }));
    await ok("getMerchant", client.call("getMerchant", { params: { path: { merchantId: 10001 } } }));
    await ok("listStores", client.call("listStores", { params: { query: { merchantId: 10001 } } }));
    await ok("listNearbyStores", client.call("listNearbyStores", { params: { query: { latitude: 31.2345, longitude: 121.4737, radius: 5000 } } }));
    await ok("getStore", client.call("getStore", { params: { path: { storeId: 20001 } } }));
    await ok("getStoreBusinessHours", client.call("getStoreBusinessHours", { params: { path: { storeId: 20001 } } }));
    await ok("listCardTemplates", client.call("listCardTemplates", { params: { query: { merchantId: 10001 } } }));

    // A customer, an order, its payment, a refund.
    const { appUserId } = await ok("syncCustomer", client.call("syncCustomer", { body: { openUserId: "prism-judge", nickname: "Judge" } }));
    const items = [{ itemType: 1 as const, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }];
    const orderId = await ok("createOrder", client.call("createOrder", { body: { merchantId: 10001, storeId: 20001, userId: appUserId, orderType: 1, items } }));
    expect(BigInt(orderId)).toBeLessThan(TWO_53);
    await ok("getOrder", client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10001 } } }));
    const payment = await ok("payOrder", client.call("payOrder", { params: { path: { orderId } }, body: { merchantId: 10001, notifyUrl: receiverUrl, attach: "prism" } }));
    await ok("queryPayment", client.call("queryPayment", { params: { query: { tradeNo: payment.tradeNo } } }));
    await payThroughControl(payment.tradeNo);
    const paid = await ok("queryPayment", client.call("queryPayment", { params: { query: { tradeNo: payment.tradeNo } } }));
    expect(paid.tradeStatus).toBe("SUCCESS");
    await ok("listOrderStatusHistory", client.call("listOrderStatusHistory", { params: { path: { orderId }, query: { merchantId: 10001 } } }));
    // State conflicts on the paid order.
    await refused("payOrder", client.call("payOrder", { params: { path: { orderId } }, body: { merchantId: 10001, notifyUrl: receiverUrl } }), 300002);
    await refused("cancelOrder", client.call("cancelOrder", { params: { path: { orderId } }, body: { merchantId: 10001 } }), 300003);
    await refused("writeOffOrder", client.call("writeOffOrder", { params: { path: { orderId }, query: { merchantId: 10001 } }, body: {} }), 300005);
    await ok("refundOrder", client.call("refundOrder", { params: { path: { orderId }, query: { merchantId: 10001 } }, body: { reason: "Changed my mind", outRefundNo: "R-prism-1" } }));
    await refused("refundOrder", client.call("refundOrder", { params: { path: { orderId }, query: { merchantId: 10001 } }, body: { reason: "Again" } }), 300004);

    // A cancelled order, and a service-type order written off.
    const second = await client.call("createOrder", { body: { merchantId: 10001, userId: appUserId, orderType: 1, items } });
    await ok("cancelOrder", client.call("cancelOrder", { params: { path: { orderId: second } }, body: { merchantId: 10001, reason: "Out of stock" } }));
    await refused("payOrder", client.call("payOrder", { params: { path: { orderId: second } }, body: { merchantId: 10001, notifyUrl: receiverUrl } }), 300002);
    await refused("refundOrder", client.call("refundOrder", { params: { path: { orderId: second }, query: { merchantId: 10001 } }, body: { reason: "Nothing paid" } }), 300004);
    const voucher = await client.call("createOrder", { body: { merchantId: 10001, userId: appUserId, orderType: 3, items: [{ itemType: 2, itemId: 41001, itemName: "Tea voucher", price: 5000, quantity: 1 }] } });
    await refused("writeOffOrder", client.call("writeOffOrder", { params: { path: { orderId: voucher }, query: { merchantId: 10001 } }, body: {} }), 300006);
    const voucherPayment = await client.call("payOrder", { params: { path: { orderId: voucher } }, body: { merchantId: 10001, notifyUrl: receiverUrl } });
    await payThroughControl(voucherPayment.tradeNo);
    await ok("writeOffOrder", client.call("writeOffOrder", { params: { path: { orderId: voucher }, query: { merchantId: 10001 } }, body: { storeId: 20001, remark: "Redeemed at the counter" } }));

    // A cashier session of the app's own, and its idempotency conflict.
    const session = { merchantId: 10001, outTradeNo: "PRISM-0001", totalAmount: 4250, subject: "Tea for two", notifyUrl: receiverUrl, expireMinutes: 15 };
    const created = await ok("createCashierSession", client.call("createCashierSession", { body: session }));
    const repeated = await ok("createCashierSession", client.call("createCashierSession", { body: session }));
    expect(repeated.tradeNo).toBe(created.tradeNo);
    await refused("createCashierSession", client.call("createCashierSession", { body: { ...session, totalAmount: 4251 } }), 400002);
    await refused("queryPayment", client.call("queryPayment", { params: { query: { tradeNo: "1234567890123456789" } } }), 400001);

    // Member cards: direct, credit, and the tier rules.
    await ok("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 60001, appUserId, tierId: 61002 } }));
    await ok("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 60004, appUserId } }));
    await refused("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 60002, appUserId, tierId: 61001 } }), 500003);
    await refused("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 60001, appUserId, tierId: 69999 } }), 500002);
    await refused("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 69999, appUserId } }), 500001);
    await refused("purchaseMemberCard", client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 60002, appUserId: 880000099999 } }), 200005);

    // Unknown resources, foreign and offline merchants, missing permission.
    await refused("getOrder", client.call("getOrder", { params: { path: { orderId: 123 }, query: { merchantId: 10001 } } }), 300001);
    await refused("getOrder", client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10004 } } }), 100008);
    await refused("createOrder", client.call("createOrder", { body: { merchantId: 10004, userId: appUserId, orderType: 1, items } }), 100008);
    await refused("createOrder", client.call("createOrder", { body: { merchantId: 10003, userId: appUserId, orderType: 1, items } }), 200002);
    await refused("createOrder", client.call("createOrder", { body: { merchantId: 99999, userId: appUserId, orderType: 1, items } }), 200001);
    await refused("createOrder", client.call("createOrder", { body: { merchantId: 10001, storeId: 29999, userId: appUserId, orderType: 1, items } }), 200003);
    await refused("getMerchant", client.call("getMerchant", { params: { path: { merchantId: 10004 } } }), 100008);
    await refused("getStore", client.call("getStore", { params: { path: { storeId: 29999 } } }), 200003);
    await refused("getStoreBusinessHours", client.call("getStoreBusinessHours", { params: { path: { storeId: 20005 } } }), 100008);
    await refused("listStores", client.call("listStores", { params: { query: { merchantId: 10004 } } }), 100008);
    await refused("listCardTemplates", client.call("listCardTemplates", { params: { query: { merchantId: 10004 } } }), 100008);
    await refused("listOrderStatusHistory", client.call("listOrderStatusHistory", { params: { path: { orderId: 123 }, query: { merchantId: 10001 } } }), 300001);
    await refused("cancelOrder", client.call("cancelOrder", { params: { path: { orderId: 123 } }, body: { merchantId: 10001 } }), 300001);
    const basic = signedClient(strict, "strict", BASIC);
    await refused("listMerchants", basic.call("listMerchants"), 100007);

    // Validation the spec cannot say: the total of price × quantity above 2^31 − 1 fen.
    await refused("createOrder", client.call("createOrder", { body: { merchantId: 10001, userId: appUserId, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Gold tea", price: 2_000_000_000, quantity: 2 }] } }), 300007);

    // Signature failures whose headers are well formed, so only the server can judge them.
    await refused("listStores", signedClient(strict, "strict", { appSecret: "not-the-secret" }).call("listStores"), 100003);
    await refused("listStores", signedClient(strict, "strict", { appKey: "no-such-app" }).call("listStores"), 100002);
    await refused("listStores", signedClient(strict, "strict", { now: () => Date.now() - 600_000 }).call("listStores"), 100004);
    const sameNonce = signedClient(strict, "strict", { nonce: () => "prism-fixed-nonce-0001" });
    await sameNonce.call("listStores");
    await refused("listStores", sameNonce.call("listStores"), 100005);

    // The timestamp's format is the server's to judge too: the spec declares no header pattern.
    const millis = await fetch(`${strict.origin}/stores`, { headers: { ...signRequestHeaders(DEMO), "X-Timestamp": String(Date.now()) } });
    exchanges.push({ via: "strict", method: "GET", path: "/stores", status: millis.status, contentType: millis.headers.get("content-type") ?? "", violations: millis.headers.get("sl-violations"), body: await millis.text() });
    expect(JSON.parse(exchanges.at(-1)!.body).code).toBe(100010);

    expect([...walked].sort()).toEqual(operationIds("signed").sort());
    const strictExchanges = exchanges.filter((exchange) => exchange.via === "strict");
    expect(strictExchanges.length).toBeGreaterThan(50);
    for (const exchange of strictExchanges) {
      expect(exchange.contentType, `${exchange.method} ${exchange.path} answered by Prism itself: ${exchange.body}`).toMatch(/^application\/json/);
      expect(exchange.violations, `${exchange.method} ${exchange.path}`).toBeNull();
    }
    expect(strict.violations()).toEqual([]);
  }, 60_000);

  it("refuses by itself what the spec forbids, and a Prism without --errors finds the sandbox's refusals of them valid", async () => {
    const cases: { name: string; method: string; path: string; body?: string; headers?: (h: Record<string, string>) => void; code: number }[] = [
      { name: "missing X-Sign", method: "GET", path: "/stores", headers: (h) => delete h["X-Sign"], code: 100001 },
      { name: "required field missing", method: "POST", path: "/orders", body: '{"merchantId":10001}', code: 100009 },
      { name: "subject too long", method: "POST", path: "/payment/cashier/create", body: JSON.stringify({ merchantId: 10001, outTradeNo: "PRISM-V1", totalAmount: 1, subject: "x".repeat(300), notifyUrl: "https://example.com/cb" }), code: 100009 },
      { name: "pageSize above its maximum", method: "GET", path: "/merchants?pageSize=1000", code: 100009 },
      { name: "orderId not an integer", method: "GET", path: "/orders/abc?merchantId=10001", code: 100009 },
    ];
    for (const testCase of cases) {
      const send = async (prism: PrismProxy) => {
        const headers: Record<string, string> = signRequestHeaders({ ...DEMO, body: testCase.body ?? "" });
        if (testCase.body) headers["Content-Type"] = "application/json";
        testCase.headers?.(headers);
        const answer = await fetch(`${prism.origin}${testCase.path}`, { method: testCase.method, headers, body: testCase.body });
        return { status: answer.status, type: answer.headers.get("content-type") ?? "", violations: answer.headers.get("sl-violations"), body: await answer.text() };
      };
      const byStrict = await send(strict);
      expect(byStrict.type, `${testCase.name}: ${byStrict.body}`).toContain("application/problem+json");
      expect([401, 422, 404], testCase.name).toContain(byStrict.status);

      const byLenient = await send(lenient);
      expect(byLenient.type, `${testCase.name}: ${byLenient.body}`).toMatch(/^application\/json/);
      expect(JSON.parse(byLenient.body).code, `${testCase.name}: ${byLenient.body}`).toBe(testCase.code);
      const found = JSON.parse(byLenient.violations ?? "[]") as { location: string[] }[];
      expect(found.filter((violation) => violation.location[0] === "response"), `${testCase.name}: ${byLenient.violations}`).toEqual([]);
    }
    // It logged the requests' violations (so its log is being read), and none of an answer.
    await lenient.waitForLog(/Violation: request/);
    expect(lenient.violations().filter((line) => line.includes("Violation: response"))).toEqual([]);
  }, 60_000);

  it("walks the key-based interface through its own Prism with zero violations", async () => {
    const keyed = createKeyedClient({ baseUrl: `${keyedPrism.origin}/v1`, apiKey: "demo-api-key", retry: false, fetch: viaPrism(keyedPrism.origin, "/v1", "keyed") });
    await keyed.call("listAccountMerchants");
    await keyed.call("listAccountMerchants", { params: { query: { status: "active" } } });
    const wrongKey = createKeyedClient({ baseUrl: `${keyedPrism.origin}/v1`, apiKey: "not-a-key", retry: false, fetch: viaPrism(keyedPrism.origin, "/v1", "keyed") });
    expect((await refusal(wrongKey.call("listAccountMerchants"))).code).toBe(401);
    const keyedExchanges = exchanges.filter((exchange) => exchange.via === "keyed");
    expect(keyedExchanges).toHaveLength(3);
    for (const exchange of keyedExchanges) {
      expect(exchange.contentType, exchange.body).toMatch(/^application\/json/);
      expect(exchange.violations).toBeNull();
    }
    expect(keyedPrism.violations()).toEqual([]);
  }, 30_000);

  it("is a judge that can fail: a canary answer that breaks the spec is caught", async () => {
    const headers: Record<string, string> = { ...signRequestHeaders(DEMO), [CANARY_HEADER]: "broken" };
    const answer = await fetch(`${strict.origin}/merchants/10001`, { headers });
    expect(answer.status).toBe(500);
    expect(answer.headers.get("content-type")).toContain("application/problem+json");
    const problem = JSON.parse(await answer.text()) as { type: string; validation: { location: string[] }[] };
    expect(problem.type).toContain("VIOLATIONS");
    expect(problem.validation.some((violation) => violation.location.join(".").startsWith("response.body"))).toBe(true);
    await strict.waitForLog(/errors#VIOLATIONS/);
    expect(strict.violations().some((line) => line.includes("errors#VIOLATIONS"))).toBe(true);
  }, 30_000);
});
