// The package's own client against a sandbox with faults set: it honours Retry-After (a floor
// under its back-off), spends exactly its retry budget, retries only what is safe to repeat
// (GETs, createCashierSession), gives up when the service asks for a longer wait than it allows,
// and surfaces what it could not recover from as typed errors. Waits are injected (no sleeps):
// the test reads the waits the client asked for.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, createSignedClient, NetworkError, TimeoutError, type SignedClient } from "../../src/client/index.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
let waits: number[];

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  expect(sb.logs.errors).toEqual([]);
  await sb.close();
});
beforeEach(async () => {
  await sb.control("POST", "/reset");
  waits = [];
});

function client(options: { retries?: number; maxDelayMs?: number; timeoutMs?: number } = {}): SignedClient {
  return createSignedClient({
    baseUrl: `${sb.url}/open-api/v1`,
    appKey: DEMO.appKey,
    appSecret: DEMO.appSecret,
    now: () => sb.sandbox.clock.now(),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    retry: {
      retries: options.retries ?? 2,
      baseDelayMs: 100,
      maxDelayMs: options.maxDelayMs ?? 5000,
      // No jitter: each wait is exactly the larger of Retry-After and the back-off's cap times 0.
      random: () => 0,
      sleep: async (ms) => void waits.push(ms),
    },
  });
}

async function armed(body: Record<string, unknown>): Promise<void> {
  const answer = await sb.control("POST", "/faults", body);
  expect(answer.json?.code, answer.text).toBe(0);
}

async function remaining(): Promise<number[]> {
  return (await sb.control("GET", "/faults")).json.data.list.map((fault: { remaining: number }) => fault.remaining);
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

const cashier = (outTradeNo: string) => ({ merchantId: 10001, outTradeNo, totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" });

describe("rate-limited and unavailable", () => {
  it("waits Retry-After before each retry and succeeds once the fault is spent", async () => {
    await armed({ operationId: "listStores", kind: "rate-limited", times: 2, retryAfterSeconds: 1 });
    const page = await client().call("listStores", { params: { query: { merchantId: 10001 } } });
    expect(page.list.length).toBeGreaterThan(0);
    expect(waits).toEqual([1000, 1000]);
    expect(await remaining()).toEqual([0]);
  });

  it("spends exactly its retry budget, then throws the last answer as an ApiError", async () => {
    await armed({ operationId: "listStores", kind: "unavailable", times: 5, retryAfterSeconds: 0 });
    const error = await caught(client({ retries: 2 }).call("listStores", { params: { query: { merchantId: 10001 } } }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 100099, httpStatus: 503 });
    // Three attempts (the first and two retries): two of the five uses are left.
    expect(await remaining()).toEqual([2]);
    // Retry-After 0 leaves the back-off alone: 0 here (no jitter).
    expect(waits).toEqual([0, 0]);
  });

  it("gives up at once when Retry-After asks for more than maxDelayMs", async () => {
    await armed({ operationId: "listStores", kind: "rate-limited", times: 3, retryAfterSeconds: 10 });
    const error = await caught(client({ maxDelayMs: 5000 }).call("listStores", { params: { query: { merchantId: 10001 } } }));
    expect(error).toMatchObject({ code: 100006, httpStatus: 429 });
    expect(waits).toEqual([]);
    expect(await remaining()).toEqual([2]);
  });

  it("retries createCashierSession (idempotent on outTradeNo) past a lost answer and gets the trade the first attempt opened", async () => {
    await armed({ operationId: "createCashierSession", kind: "unavailable", when: "after", appKey: DEMO.appKey });
    const session = await client().call("createCashierSession", { body: cashier("CLIENT-RETRY-1") });
    expect(waits).toHaveLength(1);
    expect((await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "CLIENT-RETRY-1"))?.tradeNo).toBe(session.tradeNo);
    expect((await sb.sandbox.state.trades()).filter((trade) => trade.outTradeNo === "CLIENT-RETRY-1")).toHaveLength(1);
  });

  it("never retries createOrder: the 503 is thrown after one attempt (the order may exist)", async () => {
    await armed({ operationId: "createOrder", kind: "unavailable", when: "after" });
    const orders = (await sb.sandbox.state.orders()).length;
    const error = await caught(
      client().call("createOrder", { body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Tea", price: 100, quantity: 1 }] } }),
    );
    expect(error).toMatchObject({ code: 100099, httpStatus: 503 });
    expect(waits).toEqual([]);
    expect(await sb.sandbox.state.orders()).toHaveLength(orders + 1);
  });
});

describe("internal-error, timeout and reset-connection", () => {
  it("does not retry a 500 (100099 is not 'come back later')", async () => {
    await armed({ operationId: "listStores", kind: "internal-error", times: 2 });
    const error = await caught(client().call("listStores", { params: { query: { merchantId: 10001 } } }));
    expect(error).toMatchObject({ code: 100099, httpStatus: 500, errorName: "INTERNAL_ERROR" });
    expect(waits).toEqual([]);
    expect(await remaining()).toEqual([1]);
  });

  it("a held answer is a TimeoutError, retried for a GET", async () => {
    await armed({ operationId: "queryPayment", kind: "timeout", delayMs: 5000 });
    const { tradeNo } = await sb.createTrade();
    const trade = await client({ timeoutMs: 300 }).call("queryPayment", { params: { query: { tradeNo } } });
    expect(trade.tradeStatus).toBe("WAIT_BUYER_PAY");
    expect(waits).toHaveLength(1);
    await armed({ operationId: "queryPayment", kind: "timeout", delayMs: 5000 });
    const error = await caught(client({ timeoutMs: 300, retries: 0 }).call("queryPayment", { params: { query: { tradeNo } } }));
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("a dropped connection is a NetworkError, retried for a GET", async () => {
    await armed({ operationId: "listStores", kind: "reset-connection", times: 3 });
    const error = await caught(client({ retries: 2 }).call("listStores", { params: { query: { merchantId: 10001 } } }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(waits).toHaveLength(2);
    expect(await remaining()).toEqual([0]);
    await armed({ operationId: "listStores", kind: "reset-connection" });
    await client().call("listStores", { params: { query: { merchantId: 10001 } } });
  });
});
