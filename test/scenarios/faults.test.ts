// Faults on purpose (docs/scenarios.md): createFault / listFaults / deleteFault and the
// X-Sandbox-Fault header against a real sandbox on 127.0.0.1. Each kind answers as documented,
// before or after the operation; faults are scoped to their app, bounded, cleared by a reset,
// and deterministic. Connection-level kinds (timeout, reset-connection) are in
// connection-faults.test.ts, over raw sockets.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BASIC, DEMO, errorEnvelopeErrors, startSandbox, successSchemaErrors, type Answer, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  expect(sb.logs.errors).toEqual([]);
  await sb.close();
});
beforeEach(async () => {
  expect((await sb.control("POST", "/reset")).json?.code).toBe(0);
});

async function fault(body: Record<string, unknown>): Promise<Answer> {
  return sb.control("POST", "/faults", body);
}

async function armed(body: Record<string, unknown>): Promise<{ faultId: string }> {
  const answer = await fault(body);
  expect(answer.json?.code, answer.text).toBe(0);
  expect(successSchemaErrors("sandbox-control", "createFault", answer.json)).toEqual([]);
  return answer.json.data;
}

const cashierBody = (outTradeNo: string) => ({ merchantId: 10001, outTradeNo, totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" });

describe("createFault", () => {
  it("arms a fault with its defaults and lists it, oldest first", async () => {
    const first = await fault({ operationId: "queryPayment", kind: "rate-limited" });
    expect(first.json.data).toMatchObject({ faultId: "flt_1", operationId: "queryPayment", kind: "rate-limited", when: "before", times: 1, remaining: 1, delayMs: null, retryAfterSeconds: 1, appKey: null, hits: [] });
    await armed({ operationId: "createOrder", kind: "internal-error", when: "after", times: 3, appKey: DEMO.appKey });
    await armed({ operationId: "listStores", kind: "slow", delayMs: 5, appKey: BASIC.appKey });
    const all = await sb.control("GET", "/faults");
    expect(successSchemaErrors("sandbox-control", "listFaults", all.json)).toEqual([]);
    expect(all.json.data.list.map((f: { faultId: string }) => f.faultId)).toEqual(["flt_1", "flt_2", "flt_3"]);
    // An app's view: its own faults and those for every app.
    const demo = await sb.control("GET", `/faults?appKey=${DEMO.appKey}`);
    expect(demo.json.data.list.map((f: { faultId: string }) => f.faultId)).toEqual(["flt_1", "flt_2"]);
    const byOperation = await sb.control("GET", "/faults?operationId=listStores");
    expect(byOperation.json.data.total).toBe(1);
  });

  it.each([
    ["an operation no interface has", { operationId: "payEverything", kind: "timeout" }, /body\.operationId "payEverything" is not an operation of the signed or key-based interface/],
    ["a control operation", { operationId: "payTrade", kind: "timeout" }, /the control API's own/],
    ["an unknown kind", { operationId: "getOrder", kind: "explode" }, /kind must be equal to one of the allowed values/],
    ["slow without delayMs", { operationId: "getOrder", kind: "slow" }, /delayMs/],
    ["Retry-After on an internal error", { operationId: "getOrder", kind: "internal-error", retryAfterSeconds: 3 }, /body\.kind must be equal to one of the allowed values: rate-limited, unavailable/],
    ["an app the sandbox does not have", { operationId: "getOrder", kind: "timeout", appKey: "no-such-app" }, /body\.appKey "no-such-app" is not an app of this sandbox; the fixtures have demo-app-key/],
    ["an app key on the key-based interface", { operationId: "listAccountMerchants", kind: "timeout", appKey: DEMO.appKey }, /key-based interface, whose callers have an API key/],
    ["times 0", { operationId: "getOrder", kind: "timeout", times: 0 }, /times must be >= 1/],
    ["an unknown field", { operationId: "getOrder", kind: "timeout", probability: 0.5 }, /probability/],
  ])("refuses %s with 100009 naming the field", async (_name, body, message) => {
    const answer = await fault(body);
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toMatch(message);
    expect(errorEnvelopeErrors(answer.json, "sandbox-control")).toEqual([]);
  });

  it("keeps at most 100 per app: a spent fault makes room, else 100018 names the bound and the way out", async () => {
    for (let i = 0; i < 100; i++) await armed({ operationId: "listStores", kind: "slow", delayMs: 1, appKey: DEMO.appKey });
    // Another app's bound, and the bound of faults for every app, are their own.
    await armed({ operationId: "listStores", kind: "slow", delayMs: 1, appKey: BASIC.appKey });
    await armed({ operationId: "listStores", kind: "slow", delayMs: 1 });
    const refused = await fault({ operationId: "listStores", kind: "slow", delayMs: 1, appKey: DEMO.appKey });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe(100018);
    expect(refused.json.msg).toMatch(/appKey demo-app-key: 100 faults are set, the most the sandbox keeps per app, and none is spent; delete some/);
    expect(errorEnvelopeErrors(refused.json, "sandbox-control")).toEqual([]);
    // Faults meet requests oldest first: demo's request spends flt_1.
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).json.code).toBe(0);
    const spent = (await sb.control("GET", "/faults?operationId=listStores")).json.data.list.find((f: { remaining: number }) => f.remaining === 0);
    expect(spent.faultId).toBe("flt_1");
    const made = await armed({ operationId: "listStores", kind: "slow", delayMs: 1, appKey: DEMO.appKey });
    expect(made.faultId).toBe("flt_103");
    const list = (await sb.control("GET", "/faults")).json.data.list.map((f: { faultId: string }) => f.faultId);
    expect(list).not.toContain("flt_1");
    expect(list).toHaveLength(102);
  });
});

describe("deleteFault and resetState", () => {
  it("deletes a fault: the next request is answered normally; an id not held is 100009", async () => {
    const { faultId } = await armed({ operationId: "listStores", kind: "internal-error" });
    const deleted = await sb.control("DELETE", `/faults/${faultId}`);
    expect(deleted.json.code).toBe(0);
    expect(successSchemaErrors("sandbox-control", "deleteFault", deleted.json)).toEqual([]);
    expect(deleted.json.data).toMatchObject({ faultId, remaining: 1 });
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
    const again = await sb.control("DELETE", `/faults/${faultId}`);
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({ code: 100019, data: null });
    expect(again.json.msg).toMatch(/faultId: the sandbox holds no fault flt_1/);
    const malformed = await sb.control("DELETE", "/faults/fault-1");
    expect(malformed.json.code).toBe(100009);
  });

  it("a reset clears every fault and counts ids from 1 again", async () => {
    await armed({ operationId: "listStores", kind: "internal-error", times: 5 });
    await sb.control("POST", "/reset");
    expect((await sb.control("GET", "/faults")).json.data).toEqual({ list: [], total: 0 });
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
    expect((await armed({ operationId: "listStores", kind: "internal-error" })).faultId).toBe("flt_1");
  });
});

describe("the answering kinds", () => {
  it("rate-limited: 429, 100006 and Retry-After, in place of the operation, then the next request is answered", async () => {
    await armed({ operationId: "listStores", kind: "rate-limited", times: 2, retryAfterSeconds: 7 });
    for (let i = 0; i < 2; i++) {
      const answer = await sb.signed({ path: "/stores?merchantId=10001" });
      expect(answer.status).toBe(429);
      expect(answer.headers.get("retry-after")).toBe("7");
      expect(answer.json).toMatchObject({ code: 100006, data: null });
      expect(answer.json.msg).toMatch(/^Too many requests; retry after 7 s\. \(sandbox fault flt_1: rate-limited before listStores, which was not carried out\.\)$/);
      expect(errorEnvelopeErrors(answer.json)).toEqual([]);
    }
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
    const [spent] = (await sb.control("GET", "/faults")).json.data.list;
    expect(spent.remaining).toBe(0);
    expect(spent.hits).toHaveLength(2);
    expect(spent.hits[0]).toMatchObject({ method: "GET", path: "/open-api/v1/stores", appKey: DEMO.appKey, carriedOut: false, operationCode: null, status: 429, code: 100006 });
  });

  it("internal-error before: 500 with 100099 and nothing done", async () => {
    await armed({ operationId: "createOrder", kind: "internal-error" });
    const orders = (await sb.sandbox.state.orders()).length;
    const answer = await sb.signed({ path: "/orders", body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Tea", price: 100, quantity: 1 }] } });
    expect(answer.status).toBe(500);
    expect(answer.json.code).toBe(100099);
    expect(errorEnvelopeErrors(answer.json)).toEqual([]);
    expect(await sb.sandbox.state.orders()).toHaveLength(orders);
  });

  it("internal-error after: the work is done, the answer is lost; a retry with the same outTradeNo answers the same trade", async () => {
    await armed({ operationId: "createCashierSession", kind: "internal-error", when: "after", appKey: DEMO.appKey });
    const lost = await sb.signed({ path: "/payment/cashier/create", body: cashierBody("FAULT-AFTER-1") });
    expect(lost.status).toBe(500);
    expect(lost.json.code).toBe(100099);
    expect(lost.json.msg).toMatch(/sandbox fault flt_1: internal-error after createCashierSession, which was carried out and answered code 0/);
    const made = await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "FAULT-AFTER-1");
    expect(made?.status).toBe("WAIT_BUYER_PAY");
    const retry = await sb.signed({ path: "/payment/cashier/create", body: cashierBody("FAULT-AFTER-1") });
    expect(retry.json.code).toBe(0);
    expect(retry.json.data.tradeNo).toBe(made!.tradeNo);
    const [spent] = (await sb.control("GET", "/faults")).json.data.list;
    expect(spent.hits[0]).toMatchObject({ carriedOut: true, operationCode: 0, status: 500, code: 100099 });
  });

  it("unavailable: 503 with Retry-After and the internal-error code (key-based: 500), after a refused operation too", async () => {
    await armed({ operationId: "getOrder", kind: "unavailable", when: "after", retryAfterSeconds: 0 });
    const answer = await sb.signed({ path: "/orders/9007199254740993?merchantId=10001" });
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("0");
    expect(answer.json.code).toBe(100099);
    // The operation refused (no such order): its code is what the fault replaced.
    expect(answer.json.msg).toMatch(/answered code 300001/);
    await armed({ operationId: "listAccountMerchants", kind: "unavailable" });
    const keyed = await sb.keyed("/merchants");
    expect(keyed.status).toBe(503);
    expect(keyed.headers.get("retry-after")).toBe("1");
    expect(keyed.json).toMatchObject({ code: 500, data: null });
    expect(keyed.json.message).toMatch(/temporarily unavailable/);
  });

  it("the key-based interface: rate-limited answers 429 with code 429", async () => {
    await armed({ operationId: "listAccountMerchants", kind: "rate-limited", retryAfterSeconds: 4 });
    const keyed = await sb.keyed("/merchants");
    expect(keyed.status).toBe(429);
    expect(keyed.headers.get("retry-after")).toBe("4");
    expect(keyed.json).toMatchObject({ code: 429, data: null });
    expect((await sb.keyed("/merchants")).status).toBe(200);
  });

  it("slow: the real answer, delayMs late (before: the operation runs late; after: it runs at once)", async () => {
    await armed({ operationId: "createOrder", kind: "slow", delayMs: 150 });
    const orders = (await sb.sandbox.state.orders()).length;
    const started = performance.now();
    const pending = sb.createOrder();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await sb.sandbox.state.orders()).toHaveLength(orders);
    await pending;
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(await sb.sandbox.state.orders()).toHaveLength(orders + 1);

    await armed({ operationId: "createOrder", kind: "slow", when: "after", delayMs: 150 });
    const late = sb.createOrder();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await sb.sandbox.state.orders()).toHaveLength(orders + 2);
    await late;
    const hits = (await sb.control("GET", "/faults")).json.data.list.map((f: { hits: unknown[] }) => f.hits[0]);
    expect(hits).toEqual([expect.objectContaining({ carriedOut: true, operationCode: 0, status: 200, code: 0 }), expect.objectContaining({ carriedOut: true, operationCode: 0, status: 200, code: 0 })]);
  });
});

describe("scope", () => {
  it("a fault with an appKey meets only that app's requests; one without meets every app's", async () => {
    await armed({ operationId: "listStores", kind: "internal-error", appKey: BASIC.appKey });
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
    expect((await sb.signed({ path: "/stores", app: BASIC })).status).toBe(500);
    await armed({ operationId: "listStores", kind: "internal-error", times: 2 });
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(500);
    expect((await sb.signed({ path: "/stores", app: BASIC })).status).toBe(500);
    expect((await sb.signed({ path: "/stores", app: BASIC })).status).toBe(200);
  });

  it("a request refused before the operation (a forged signature, an invalid query) keeps its refusal and does not use the fault up", async () => {
    await armed({ operationId: "listStores", kind: "internal-error", appKey: DEMO.appKey });
    const forged = await sb.signed({ path: "/stores?merchantId=10001", app: { appKey: DEMO.appKey, appSecret: "not-the-secret" } });
    expect(forged.json.code).toBe(100003);
    const invalid = await sb.signed({ path: "/stores?merchantId=10001&pageSize=1000" });
    expect(invalid.json.code).toBe(100009);
    expect((await sb.control("GET", "/faults")).json.data.list[0].remaining).toBe(1);
    expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(500);
  });

  it("is deterministic: the same control calls and requests give the same answers in the same order", async () => {
    const run = async () => {
      await sb.control("POST", "/reset");
      await armed({ operationId: "listStores", kind: "rate-limited", times: 2 });
      await armed({ operationId: "listStores", kind: "internal-error", appKey: DEMO.appKey });
      await armed({ operationId: "listStores", kind: "unavailable", appKey: BASIC.appKey });
      const seen: string[] = [];
      for (const app of [DEMO, BASIC, BASIC, DEMO, DEMO, BASIC]) {
        const answer = await sb.signed({ path: "/stores", app });
        seen.push(`${app.appKey}:${answer.status}:${answer.json.code}`);
      }
      return seen;
    };
    const first = await run();
    expect(first).toEqual([
      "demo-app-key:429:100006",
      "basic-app-key:429:100006",
      "basic-app-key:503:100099",
      "demo-app-key:500:100099",
      "demo-app-key:200:0",
      "basic-app-key:200:0",
    ]);
    expect(await run()).toEqual(first);
  });
});

describe("the X-Sandbox-Fault header", () => {
  it("faults one request without a control call, and leaves the table alone", async () => {
    await armed({ operationId: "createCashierSession", kind: "rate-limited" });
    const answer = await sb.signed({ path: "/payment/cashier/create", body: cashierBody("HEADER-1"), headers: { "X-Sandbox-Fault": "internal-error; when=after" } });
    expect(answer.status).toBe(500);
    expect(answer.json.msg).toMatch(/the X-Sandbox-Fault header: internal-error after createCashierSession, which was carried out and answered code 0/);
    expect(await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "HEADER-1")).toBeDefined();
    expect((await sb.control("GET", "/faults")).json.data.list[0].remaining).toBe(1);
    const header = await sb.signed({ path: "/stores?merchantId=10001", headers: { "X-Sandbox-Fault": "unavailable;retryAfterSeconds=9" } });
    expect(header.status).toBe(503);
    expect(header.headers.get("retry-after")).toBe("9");
    const keyed = await sb.raw("/v1/merchants", { headers: { Authorization: "Bearer demo-api-key", "X-Sandbox-Fault": "rate-limited" } });
    expect(keyed.status).toBe(429);
    expect(keyed.json.code).toBe(429);
  });

  it.each([
    ["an unknown kind", "explode", /X-Sandbox-Fault: kind must be equal to one of the allowed values: rate-limited, internal-error/],
    ["an unknown parameter", "slow;delay=5", /X-Sandbox-Fault: unknown parameter "delay"; the parameters are when, delayMs, retryAfterSeconds/],
    ["a part that is not name=value", "slow;500", /X-Sandbox-Fault: "500" is not name=value/],
    ["slow without delayMs", "slow", /X-Sandbox-Fault: delayMs is required for this kind/],
    ["a bad when", "timeout;when=during", /X-Sandbox-Fault: when must be equal to one of the allowed values: before, after/],
    ["a parameter given twice", "slow;delayMs=1;delayMs=2", /X-Sandbox-Fault: delayMs is given twice/],
    ["Retry-After on a reset", "reset-connection;retryAfterSeconds=1", /X-Sandbox-Fault: retryAfterSeconds is only for kind rate-limited, unavailable/],
  ])("refuses %s with 100009 naming the header", async (_name, value, message) => {
    const answer = await sb.signed({ path: "/stores?merchantId=10001", headers: { "X-Sandbox-Fault": value } });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toMatch(message);
  });

  it("a malformed header on the key-based interface is its 400", async () => {
    const keyed = await sb.raw("/v1/merchants", { headers: { Authorization: "Bearer demo-api-key", "X-Sandbox-Fault": "nope" } });
    expect(keyed.status).toBe(400);
    expect(keyed.json.code).toBe(400);
    expect(keyed.json.message).toMatch(/X-Sandbox-Fault/);
  });
});

describe("the dashboard", () => {
  it("marks each request a fault answered, with the fault and what became of the operation", async () => {
    await armed({ operationId: "listStores", kind: "internal-error", when: "after" });
    await sb.signed({ path: "/stores?merchantId=10001" });
    await sb.signed({ path: "/stores?merchantId=10001", headers: { "X-Sandbox-Fault": "rate-limited" } });
    await sb.signed({ path: "/stores?merchantId=10001" });
    const state = (await sb.raw("/sandbox/ui/state")).json;
    // Newest first: the last three listStores requests.
    const lines = state.requests.filter((line: { operationId: string }) => line.operationId === "listStores").slice(0, 3);
    expect(lines.map((line: { fault: unknown }) => line.fault)).toEqual([
      null,
      { kind: "rate-limited", when: "before", delayMs: null, retryAfterSeconds: null, faultId: null, source: "header", carriedOut: false, operationCode: null },
      { kind: "internal-error", when: "after", delayMs: null, retryAfterSeconds: null, faultId: "flt_1", source: "control", carriedOut: true, operationCode: 0 },
    ]);
    const detail = (await sb.raw(`/sandbox/ui/requests/${lines[2].id}`)).json;
    expect(detail.fault).toMatchObject({ faultId: "flt_1", kind: "internal-error" });
    expect(detail.outcome).toBe("failed");
  });
});
