// The signed client against a server that misbehaves: it drops connections (socket destroyed
// before or in the middle of an answer) or answers garbage (non-JSON, truncated JSON, an HTML
// 502 page). The client must retry only what is safe to repeat (GETs and createCashierSession,
// idempotent on outTradeNo), each attempt freshly signed, and otherwise surface a typed error
// (NetworkError or UnexpectedResponseError, both MerchantOpenPlatformError), never a bare
// TypeError. Retry waits are injected (no real sleeps).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSignedClient, MerchantOpenPlatformError, NetworkError, UnexpectedResponseError } from "../../src/client/index.js";

type Behaviour = "destroy" | "destroy-mid-body" | "not-json" | "truncated-json" | "html-502" | "empty-200" | "ok";

const STORES = '{"code":0,"msg":"success","data":{"list":[],"total":0,"pageNo":1,"pageSize":10}}';
const CASHIER = '{"code":0,"msg":"success","data":{"tradeNo":"2026112210153000001","cashierUrl":"http://127.0.0.1/cashier/2026112210153000001"}}';
const ORDER = '{"code":0,"msg":"success","data":9007199254740993}';

let server: Server;
let baseUrl: string;
let script: Behaviour[] = [];
let seen: { method: string; path: string; nonce: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", nonce: req.headers["x-nonce"] as string | undefined });
      const behaviour = script.length > 1 ? (script.shift() as Behaviour) : (script[0] ?? "ok");
      const success = req.url?.startsWith("/open-api/v1/stores") ? STORES : req.url?.startsWith("/open-api/v1/payment") ? CASHIER : ORDER;
      switch (behaviour) {
        case "destroy":
          return void req.socket.destroy();
        case "destroy-mid-body":
          res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(success.length) });
          res.write(success.slice(0, 20));
          return void setImmediate(() => req.socket.destroy());
        case "not-json":
          res.writeHead(200, { "Content-Type": "text/plain" });
          return void res.end("all good, trust me");
        case "truncated-json":
          res.writeHead(200, { "Content-Type": "application/json" });
          return void res.end(success.slice(0, Math.floor(success.length / 2)));
        case "html-502":
          res.writeHead(502, { "Content-Type": "text/html" });
          return void res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
        case "empty-200":
          res.writeHead(200, { "Content-Type": "application/json" });
          return void res.end();
        default:
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(success);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/open-api/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});
beforeEach(() => {
  script = [];
  seen = [];
});

const sleeps: number[] = [];
const client = () =>
  createSignedClient({
    baseUrl,
    appKey: "demo-app-key",
    appSecret: "demo-app-secret",
    timeoutMs: 3000,
    retry: { retries: 2, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
  });

const calls = {
  listStores: () => client().call("listStores", { params: { query: { merchantId: 10001 } } }),
  getOrder: () => client().call("getOrder", { params: { path: { orderId: 9007199254740993n }, query: { merchantId: 10001 } } }),
  createOrder: () =>
    client().call("createOrder", { body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Tea", price: 1800, quantity: 1 }] } }),
  createCashierSession: () =>
    client().call("createCashierSession", { body: { merchantId: 10001, outTradeNo: "M-1", totalAmount: 100, subject: "Coffee", notifyUrl: "https://app.example.com/notify" } }),
  payOrder: () => client().call("payOrder", { params: { path: { orderId: 9007199254740993n } }, body: { merchantId: 10001, notifyUrl: "https://app.example.com/notify" } }),
};
type Call = keyof typeof calls;

async function failure(call: Call): Promise<unknown> {
  try {
    await calls[call]();
  } catch (error) {
    return error;
  }
  throw new Error(`${call} did not fail`);
}

/** Safe to repeat: 1 + 2 retries. Not safe: exactly one attempt. */
const attemptsFor = (call: Call) => (call === "createOrder" || call === "payOrder" ? 1 : 3);

describe("a server that drops connections or answers garbage", () => {
  it.each<[Behaviour, Call[], typeof NetworkError | typeof UnexpectedResponseError]>([
    ["destroy", ["listStores", "getOrder", "createCashierSession", "createOrder", "payOrder"], NetworkError],
    ["destroy-mid-body", ["listStores", "createCashierSession", "createOrder"], NetworkError],
    ["html-502", ["listStores", "getOrder", "createCashierSession", "createOrder", "payOrder"], UnexpectedResponseError],
  ])("%s: retried only where safe, then a typed error", async (behaviour, which, type) => {
    for (const call of which) {
      script = [behaviour];
      seen = [];
      const error = await failure(call);
      expect(error, `${call}: ${String(error)}`).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(MerchantOpenPlatformError);
      expect(error).not.toBeInstanceOf(TypeError);
      expect((error as MerchantOpenPlatformError).operationId).toBe(call);
      expect(seen, call).toHaveLength(attemptsFor(call));
      // Every attempt was signed afresh.
      expect(new Set(seen.map((s) => s.nonce)).size).toBe(seen.length);
      if (behaviour === "html-502") expect((error as UnexpectedResponseError).httpStatus).toBe(502);
    }
  });

  it.each<[Behaviour, Call[]]>([
    ["not-json", ["listStores", "createOrder", "createCashierSession"]],
    ["truncated-json", ["listStores", "getOrder", "createOrder", "createCashierSession"]],
    ["empty-200", ["listStores", "createOrder"]],
  ])("%s with HTTP 200: an UnexpectedResponseError at once (a 200 is an answer, not a reason to retry)", async (behaviour, which) => {
    for (const call of which) {
      script = [behaviour];
      seen = [];
      const error = await failure(call);
      expect(error, `${call}: ${String(error)}`).toBeInstanceOf(UnexpectedResponseError);
      expect(error).not.toBeInstanceOf(TypeError);
      expect((error as UnexpectedResponseError).httpStatus).toBe(200);
      expect((error as UnexpectedResponseError).operationId).toBe(call);
      expect(seen).toHaveLength(1);
    }
  });

  it("a safe call recovers when the server does: dropped, 502, then an answer", async () => {
    script = ["destroy", "html-502", "ok"];
    await expect(calls.listStores()).resolves.toMatchObject({ total: 0 });
    expect(seen).toHaveLength(3);
    script = ["destroy-mid-body", "destroy", "ok"];
    seen = [];
    await expect(calls.createCashierSession()).resolves.toMatchObject({ tradeNo: "2026112210153000001" });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.nonce)).size).toBe(3);
  });

  it("an unsafe call is never repeated, even when a retry would have succeeded", async () => {
    script = ["destroy", "ok"];
    await expect(calls.createOrder()).rejects.toBeInstanceOf(NetworkError);
    expect(seen.map((s) => s.method)).toEqual(["POST"]);
    // The server is fine now, and the same client call goes through (once).
    seen = [];
    script = ["ok"];
    await expect(calls.createOrder()).resolves.toBe(9007199254740993n);
    expect(seen).toHaveLength(1);
  });

  it("nothing listening at all is a NetworkError after the retries, not a TypeError", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const offline = createSignedClient({ baseUrl: `http://127.0.0.1:${port}/open-api/v1`, appKey: "k", appSecret: "s", retry: { sleep: async () => {}, random: () => 0 } });
    const error = await offline.call("listStores").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(String(error)).toMatch(/ECONNREFUSED/);
  });
});
