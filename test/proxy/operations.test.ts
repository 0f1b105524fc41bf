// Every operation of both interfaces through the proxy, table-driven: a valid and an invalid
// request each, in four set-ups (verifying with secrets or checking presence only; signing for
// the client; --fail-on-violation on or off), against the real sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../src/contract/index.js";
import { parseJsonLossless } from "../../src/json/index.js";
import type { ProxyOptions } from "../../src/proxy/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { API_KEY, DEMO, DEMO_USER, type TestSandbox } from "../support/sandbox.js";
import { DEMO_SECRETS, sandboxBehindProxy, type SandboxBehindProxy } from "./helpers.js";

interface Req {
  method: "GET" | "POST";
  /** Relative to /open-api/v1 for the signed interface; absolute (/v1/...) for the key-based one. */
  path: string;
  body?: string;
}
interface Row {
  operationId: string;
  keyed?: boolean;
  valid: (sb: TestSandbox) => Promise<Req> | Req;
  invalid: (sb: TestSandbox) => Promise<Req> | Req;
}

const json = (value: unknown) => JSON.stringify(value);
const get = (path: string): Req => ({ method: "GET", path });
const post = (path: string, body?: unknown): Req => ({ method: "POST", path, ...(body !== undefined && { body: typeof body === "string" ? body : json(body) }) });
const item = { itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 };

async function paidOrder(sb: TestSandbox, orderType = 1): Promise<bigint> {
  const id = await sb.createOrder({ orderType });
  const { tradeNo } = (await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } })).json.data;
  await sb.control("POST", `/trades/${tradeNo}/pay`);
  return id;
}
let outTradeNo = 0;
let openUser = 0;
let refundNo = 0;

const ROWS: Row[] = [
  { operationId: "syncCustomer", valid: () => post("/customers/sync", { openUserId: `proxy-user-${++openUser}` }), invalid: () => post("/customers/sync", { nickname: "no openUserId" }) },
  { operationId: "createOrder", valid: () => post("/orders", `{"merchantId":10001,"userId":${DEMO_USER},"orderType":1,"items":[${json(item)}]}`), invalid: () => post("/orders", { merchantId: 10001, userId: 1, orderType: 9, items: [item] }) },
  { operationId: "getOrder", valid: async (sb) => get(`/orders/${await sb.createOrder()}?merchantId=10001`), invalid: () => get("/orders/not-a-number?merchantId=10001") },
  {
    operationId: "payOrder",
    valid: async (sb) => post(`/orders/${await sb.createOrder()}/pay`, { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" }),
    invalid: async (sb) => post(`/orders/${await sb.createOrder()}/pay`, { merchantId: 10001 }),
  },
  {
    operationId: "cancelOrder",
    valid: async (sb) => post(`/orders/${await sb.createOrder()}/cancel`, { merchantId: 10001, reason: "changed my mind" }),
    invalid: async (sb) => post(`/orders/${await sb.createOrder()}/cancel`, { merchantId: "ten" }),
  },
  {
    operationId: "listOrderStatusHistory",
    valid: async (sb) => get(`/orders/${await sb.createOrder()}/status-history?merchantId=10001`),
    invalid: async (sb) => get(`/orders/${await sb.createOrder()}/status-history?merchantId=10001&extra=1`),
  },
  {
    operationId: "refundOrder",
    valid: async (sb) => post(`/orders/${await paidOrder(sb)}/refund?merchantId=10001`, { reason: "out of stock", outRefundNo: `R-proxy-${++refundNo}` }),
    invalid: async (sb) => post(`/orders/${await paidOrder(sb)}/refund?merchantId=10001`, { reason: 5 }),
  },
  {
    operationId: "writeOffOrder",
    valid: async (sb) => post(`/orders/${await paidOrder(sb, 3)}/write-off?merchantId=10001`, { storeId: 20001 }),
    invalid: async (sb) => post(`/orders/${await paidOrder(sb, 3)}/write-off?merchantId=abc`),
  },
  {
    operationId: "createCashierSession",
    valid: () => post("/payment/cashier/create", { merchantId: 10001, outTradeNo: `P-${++outTradeNo}`, totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" }),
    invalid: () => post("/payment/cashier/create", { merchantId: 10001, outTradeNo: `P-${++outTradeNo}`, totalAmount: 0, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" }),
  },
  { operationId: "queryPayment", valid: async (sb) => get(`/payment/query?tradeNo=${(await sb.createTrade()).tradeNo}`), invalid: () => get("/payment/query") },
  {
    operationId: "purchaseMemberCard",
    valid: () => post("/member-cards/purchase", `{"merchantId":10001,"templateId":60001,"appUserId":${DEMO_USER},"tierId":61001}`),
    invalid: () => post("/member-cards/purchase", { merchantId: 10001, appUserId: 1 }),
  },
  { operationId: "listCardTemplates", valid: () => get("/card-templates?merchantId=10001"), invalid: () => get("/card-templates?pageSize=100000") },
  { operationId: "listMerchants", valid: () => get("/merchants?page=1&size=10".replace("page=1&size=10", "pageNo=1&pageSize=10")), invalid: () => get("/merchants?pageNo=0") },
  { operationId: "getMerchant", valid: () => get("/merchants/10001"), invalid: () => get("/merchants/abc") },
  { operationId: "listStores", valid: () => get("/stores?merchantId=10001"), invalid: () => get("/stores?pageSize=0") },
  { operationId: "listNearbyStores", valid: () => get("/stores/nearby?latitude=31.2304&longitude=121.4737"), invalid: () => get("/stores/nearby?latitude=200&longitude=121.4737") },
  { operationId: "getStore", valid: () => get("/stores/20001"), invalid: () => get("/stores/abc") },
  { operationId: "getStoreBusinessHours", valid: () => get("/stores/20001/business-hours"), invalid: () => get("/stores/abc/business-hours") },
  { operationId: "listAccountMerchants", keyed: true, valid: () => get("/v1/merchants"), invalid: () => get("/v1/merchants?limit=0") },
];

describe("the table covers every operation of both specs", () => {
  it("has one row per operationId", () => {
    const operationIds = (["signed", "keyed"] as const).flatMap((name) => Object.values<any>(loadBundle(name).paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId)));
    expect(ROWS.map((row) => row.operationId).sort()).toEqual(operationIds.sort());
  });
});

interface Setup {
  name: string;
  options: Partial<ProxyOptions>;
  /** How the client signs: itself (right or wrong secret) or not at all (the proxy does). */
  client: "signs" | "unsigned";
}

const SETUPS: Setup[] = [
  { name: "verifying with the secret, --fail-on-violation", options: { secrets: DEMO_SECRETS, failOnViolation: true }, client: "signs" },
  { name: "without secrets (presence only), passing violations on", options: {}, client: "signs" },
  { name: "--sign, --fail-on-violation", options: { secrets: DEMO_SECRETS, sign: true, failOnViolation: true }, client: "unsigned" },
  { name: "--sign, passing violations on", options: { secrets: DEMO_SECRETS, sign: true }, client: "unsigned" },
];

describe.each(SETUPS)("through the proxy: $name", (setup) => {
  let env: SandboxBehindProxy;
  beforeAll(async () => {
    env = await sandboxBehindProxy(setup.options);
  });
  afterAll(() => env.close());

  async function send(row: Row, req: Req, secret: string = DEMO.appSecret) {
    const headers: Record<string, string> = {};
    if (req.body !== undefined) headers["Content-Type"] = "application/json";
    if (row.keyed) headers.Authorization = `Bearer ${API_KEY}`;
    else if (setup.client === "signs") Object.assign(headers, signRequestHeaders({ appKey: DEMO.appKey, appSecret: secret, body: req.body ?? "", now: () => env.sandbox.sandbox.clock.now() }));
    const path = row.keyed ? req.path : `/open-api/v1${req.path}`;
    const before = env.sandbox.logs.requests.length;
    const response = await fetch(`${env.proxy.url}${path}`, { method: req.method, headers, ...(req.body !== undefined && { body: req.body }) });
    const text = await response.text();
    return { status: response.status, text, json: parseJsonLossless(text) as { code: number; msg?: string; message?: string }, forwarded: env.sandbox.logs.requests.length > before };
  }

  it.each(ROWS.map((row) => [row.operationId, row] as const))("%s: a valid request is served, with no violation", async (_id, row) => {
    const seen = env.violations.length;
    const answer = await send(row, await row.valid(env.sandbox));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.code, answer.text).toBe(row.keyed ? 200 : 0);
    expect(env.violations.slice(seen)).toEqual([]);
  });

  it.each(ROWS.map((row) => [row.operationId, row] as const))("%s: an invalid request is reported with its operation", async (_id, row) => {
    const seen = env.violations.length;
    const answer = await send(row, await row.invalid(env.sandbox));
    const reported = env.violations.slice(seen);
    expect(reported.map((v) => [v.direction, v.operationId]), answer.text).toEqual([["request", row.operationId]]);
    expect(reported[0]!.problems.length).toBeGreaterThan(0);
    if (setup.options.failOnViolation) {
      expect(answer.forwarded).toBe(false);
      expect(answer.status).toBe(400);
      expect(answer.json.code).toBe(row.keyed ? 400 : 100009);
      expect(answer.json.msg ?? answer.json.message).toMatch(/^mop proxy refused the request: /);
    } else {
      // Passed on: the sandbox refuses it itself, and its refusal conforms to the contract.
      expect(answer.forwarded).toBe(true);
      expect(answer.json.code, answer.text).toBe(row.keyed ? 400 : 100009);
    }
  });

  if (setup.client === "signs" && setup.options.secrets) {
    it("reports a signature made with the wrong secret, naming the registry code", async () => {
      const row = ROWS.find((r) => r.operationId === "listStores")!;
      const seen = env.violations.length;
      const answer = await send(row, row.valid(env.sandbox) as Req, "not-the-secret");
      expect(answer.json.code).toBe(100009);
      expect(env.violations.slice(seen)[0]!.problems.join()).toMatch(/signature: .*100003 SIGNATURE_MISMATCH/);
    });

    it("checks only the presence of the headers for an app it was not given", async () => {
      const seen = env.violations.length;
      const headers = signRequestHeaders({ appKey: "basic-app-key", appSecret: "basic-app-secret", now: () => env.sandbox.sandbox.clock.now() });
      const answer = await fetch(`${env.proxy.url}/open-api/v1/stores/20001`, { headers });
      expect(answer.status).toBe(200);
      expect(env.violations.slice(seen)).toEqual([]);
    });
  }
  if (!setup.options.secrets) {
    it("reports missing signature headers when it cannot verify", async () => {
      const seen = env.violations.length;
      await fetch(`${env.proxy.url}/open-api/v1/stores/20001`);
      expect(env.violations.slice(seen)[0]!.problems).toEqual(["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"].map((name) => `signature header ${name} is missing`));
    });
  }
});
