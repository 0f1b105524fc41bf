// The faults that answer nothing, seen from a raw socket (no client library in between to
// normalise what happens): `reset-connection` closes the connection without a byte of answer;
// `timeout` sends nothing and keeps the connection open until the client gives up (or the hold
// ends), then closes it. Before the operation nothing is done; after it, the work is done and
// its answer never arrives. The sandbox runs with small server limits (test/hostile), so a hold
// longer than its request timeout shows that the hold, not the server, decides.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO, type TestSandbox } from "../support/sandbox.js";
import { rawRequest, signedHead, startHostileSandbox, TEST_LIMITS } from "../hostile/support.js";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startHostileSandbox();
  // Compile the validators of the operations used below first.
  expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
  await sb.createTrade();
});
afterAll(async () => {
  expect(sb.logs.errors).toEqual([]);
  await sb.close();
});
beforeEach(async () => {
  await sb.control("POST", "/reset");
});

async function armed(body: Record<string, unknown>): Promise<void> {
  const answer = await sb.control("POST", "/faults", body);
  expect(answer.json?.code, answer.text).toBe(0);
}

const listStores = () => signedHead(sb, { method: "GET", path: "/stores?merchantId=10001" });

function cashierRequest(outTradeNo: string): string {
  const body = JSON.stringify({ merchantId: 10001, outTradeNo, totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" });
  return signedHead(sb, { path: "/payment/cashier/create", body }) + body;
}

async function latestHit(): Promise<Record<string, unknown>> {
  const [fault] = (await sb.control("GET", "/faults")).json.data.list;
  return fault.hits.at(-1);
}

describe("reset-connection", () => {
  it("before: the connection is destroyed without an answer, and nothing is done", async () => {
    await armed({ operationId: "createCashierSession", kind: "reset-connection" });
    const answer = await rawRequest(sb.url, [cashierRequest("RESET-BEFORE")], { waitMs: 3000 });
    expect(answer).toMatchObject({ status: 0, head: "", body: "", closed: true, timedOut: false });
    expect(await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "RESET-BEFORE")).toBeUndefined();
    expect(await latestHit()).toMatchObject({ carriedOut: false, status: null, code: null });
  });

  it("after: the trade is opened, then the connection is destroyed without an answer", async () => {
    await armed({ operationId: "createCashierSession", kind: "reset-connection", when: "after" });
    const answer = await rawRequest(sb.url, [cashierRequest("RESET-AFTER")], { waitMs: 3000 });
    expect(answer).toMatchObject({ status: 0, body: "", closed: true });
    expect((await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "RESET-AFTER"))?.status).toBe("WAIT_BUYER_PAY");
    expect(await latestHit()).toMatchObject({ carriedOut: true, operationCode: 0, status: null });
  });

  it("by header, on the key-based interface too", async () => {
    const answer = await rawRequest(sb.url, ["GET /v1/merchants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-api-key\r\nX-Sandbox-Fault: reset-connection\r\n\r\n"], { waitMs: 3000 });
    expect(answer).toMatchObject({ status: 0, body: "", closed: true });
  });
});

describe("timeout", () => {
  it("sends nothing while the client waits, then closes the connection when the hold ends (past the server's own request timeout)", async () => {
    const holdMs = TEST_LIMITS.requestTimeoutMs + 300;
    await armed({ operationId: "listStores", kind: "timeout", delayMs: holdMs });
    const answer = await rawRequest(sb.url, [listStores()], { waitMs: holdMs + 3000 });
    expect(answer).toMatchObject({ status: 0, head: "", body: "", closed: true, timedOut: false });
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(holdMs - 50);
  });

  it("ends when the client gives up: the request is recorded without an answer", async () => {
    await armed({ operationId: "listStores", kind: "timeout" });
    const answer = await rawRequest(sb.url, [listStores()], { waitMs: 300 });
    expect(answer).toMatchObject({ status: 0, body: "", closed: false, timedOut: true });
    // The client closed its socket; the sandbox notices and records the request as unanswered.
    const state = async () => (await sb.raw("/sandbox/ui/state")).json.requests.find((line: { operationId: string; fault: unknown }) => line.operationId === "listStores" && line.fault !== null);
    let line: { status: number; outcome: string; fault: { kind: string } } | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      line = await state();
      if (!line) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(line).toMatchObject({ status: 0, outcome: "failed", fault: { kind: "timeout" } });
  });

  it("after: the trade is opened and its answer never sent", async () => {
    await armed({ operationId: "createCashierSession", kind: "timeout", when: "after", delayMs: 400 });
    const answer = await rawRequest(sb.url, [cashierRequest("TIMEOUT-AFTER")], { waitMs: 3000 });
    expect(answer).toMatchObject({ status: 0, body: "", closed: true });
    expect((await sb.sandbox.state.tradeByOutTradeNo(DEMO.appKey, "TIMEOUT-AFTER"))?.status).toBe("WAIT_BUYER_PAY");
  });

  it("a connection held by a fault does not delay the sandbox's close", async () => {
    const other = await startHostileSandbox();
    try {
      expect((await other.control("POST", "/faults", { operationId: "listStores", kind: "timeout" })).json.code).toBe(0);
      const held = rawRequest(other.url, [signedHead(other, { method: "GET", path: "/stores?merchantId=10001" })], { waitMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      await other.close();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(await held).toMatchObject({ status: 0, closed: true });
    } finally {
      await other.close();
    }
  });
});
