import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import {
  ApiError,
  createKeyedClient,
  createSignedClient,
  MerchantOpenPlatformError,
  NetworkError,
  TimeoutError,
  UnexpectedResponseError,
} from "../../src/client/index.js";
import { appKey, appSecret, closedPort, errorEnvelope, okEnvelope, startServer, type Answer, type TestServer } from "./support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const trade = '{"tradeNo":"2026112210153000001","outTradeNo":"M-1","tradeStatus":"SUCCESS","totalAmount":4250,"payTime":"2026-11-22T10:17:02+08:00","attach":null}';

async function signedClientAnswering(answer: Answer | (() => Answer | Promise<Answer>), extra: { timeoutMs?: number } = {}) {
  server = await startServer(typeof answer === "function" ? answer : () => answer);
  return createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, retry: false, ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("the call should have failed"),
    (error: unknown) => error,
  );
}

describe("the data mode", () => {
  it("returns data when the envelope code is 0", async () => {
    const client = await signedClientAnswering(okEnvelope(trade));
    const payment = await client.call("queryPayment", { params: { query: { tradeNo: "2026112210153000001" } } });
    expect(payment).toEqual(JSON.parse(trade));
    expect(server!.received[0]!.url).toBe("/open-api/v1/payment/query?tradeNo=2026112210153000001");
  });

  it("throws ApiError with the registry entry and the operationId for an error code", async () => {
    const client = await signedClientAnswering(errorEnvelope(404, 300001, "order 1 does not exist for merchant 2"));
    const error = await rejection(client.call("getOrder", { params: { path: { orderId: 1 }, query: { merchantId: 2 } } }));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(MerchantOpenPlatformError);
    expect(error).toMatchObject({
      name: "ApiError",
      code: 300001,
      message: "order 1 does not exist for merchant 2",
      httpStatus: 404,
      operationId: "getOrder",
      errorName: "ORDER_NOT_FOUND",
      meaning: SignedErrors.ORDER_NOT_FOUND.meaning,
      entry: { name: "ORDER_NOT_FOUND", http: 404, source: "designed" },
    });
  });

  it("trusts the envelope over the HTTP status: an error code with HTTP 200 is still an ApiError", async () => {
    const client = await signedClientAnswering(errorEnvelope(200, 100007, "no merchant module"));
    const error = await rejection(client.call("listMerchants"));
    expect(error).toMatchObject({ name: "ApiError", code: 100007, httpStatus: 200, errorName: "MERCHANT_MODULE_FORBIDDEN", operationId: "listMerchants" });
  });

  it("throws ApiError without a registry entry for an unregistered code", async () => {
    const client = await signedClientAnswering(errorEnvelope(500, 999999, "something new"));
    const error = await rejection(client.call("listStores"));
    expect(error).toMatchObject({ name: "ApiError", code: 999999, entry: undefined, errorName: undefined, meaning: undefined, message: "something new" });
  });

  it.each<[string, Answer, string]>([
    ["a non-JSON 502 from a proxy", { status: 502, headers: { "content-type": "text/html" }, body: "<html><body>502 Bad Gateway</body></html>" }, "not JSON"],
    ["an empty 200", { status: 200, body: "" }, "empty body"],
    ["JSON that is not an envelope", { status: 200, headers: { "content-type": "application/json" }, body: '{"hello":"world"}' }, 'no integer "code"'],
    ["a JSON array", { status: 200, headers: { "content-type": "application/json" }, body: "[1,2]" }, "not an envelope object"],
    ["a success envelope without data", { status: 200, headers: { "content-type": "application/json" }, body: '{"code":0,"msg":"success"}' }, 'no "data"'],
  ])("throws UnexpectedResponseError with the status and a body snippet for %s", async (_name, answer, reason) => {
    const client = await signedClientAnswering(answer);
    const error = await rejection(client.call("listStores"));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ httpStatus: answer.status, bodySnippet: answer.body, operationId: "listStores" });
    expect((error as Error).message).toContain(reason);
  });

  it("makes the raw typed methods throw UnexpectedResponseError for a 200 that is not JSON", async () => {
    const client = await signedClientAnswering({ status: 200, headers: { "content-type": "text/html" }, body: "<html>maintenance</html>" });
    await expect(client.GET("/stores")).rejects.toMatchObject({ name: "UnexpectedResponseError", httpStatus: 200, bodySnippet: "<html>maintenance</html>" });
  });

  it("cuts a long body down to a snippet", async () => {
    const client = await signedClientAnswering({ status: 502, body: "x".repeat(5000) });
    const error = (await rejection(client.call("listStores"))) as UnexpectedResponseError;
    expect(error.bodySnippet.length).toBeLessThanOrEqual(201);
  });

  it("throws NetworkError when the connection is refused", async () => {
    const port = await closedPort();
    const client = createSignedClient({ baseUrl: `http://127.0.0.1:${port}/open-api/v1`, appKey, appSecret, retry: false });
    const error = await rejection(client.call("listStores"));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ operationId: "listStores", method: "GET" });
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("throws TimeoutError when no answer arrives within timeoutMs", async () => {
    const client = await signedClientAnswering(() => new Promise<Answer>(() => {}), { timeoutMs: 50 });
    const error = await rejection(client.call("listStores"));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 50, operationId: "listStores" });
  });

  it("throws TimeoutError when the headers arrive but the body stalls (the global fetch, raced against nothing)", async () => {
    // Half a body, then silence: the direct path relies on fetch honouring its signal while
    // the body is read, with no race of its own.
    const stalled = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      res.write('{"code":0,"msg":"success","data":');
    });
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = stalled.address() as AddressInfo;
      const client = createSignedClient({ baseUrl: `http://127.0.0.1:${port}/open-api/v1`, appKey, appSecret, retry: false, timeoutMs: 50 });
      const error = await rejection(client.call("listStores"));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ timeoutMs: 50, operationId: "listStores" });
      const controller = new AbortController();
      const aborted = client.call("listStores", { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user navigated away")), 10);
      await expect(aborted).rejects.toThrow("user navigated away");
    } finally {
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });

  it("throws TimeoutError even when an injected fetch ignores the abort signal", async () => {
    const client = createSignedClient({
      baseUrl: "http://127.0.0.1:9/open-api/v1",
      appKey,
      appSecret,
      retry: false,
      timeoutMs: 20,
      fetch: () => new Promise<Response>(() => {}),
    });
    await expect(client.call("listStores")).rejects.toBeInstanceOf(TimeoutError);
  });

  it("passes the app's own abort through, not as a timeout or network error", async () => {
    const client = await signedClientAnswering(() => new Promise<Answer>(() => {}));
    const controller = new AbortController();
    const call = client.call("listStores", { signal: controller.signal });
    controller.abort(new Error("user navigated away"));
    await expect(call).rejects.toThrow("user navigated away");
  });

  it("rejects an unknown operationId with a ClientConfigError", async () => {
    const client = createSignedClient({ baseUrl: "http://127.0.0.1:9/open-api/v1", appKey, appSecret });
    // @ts-expect-error not an operation of the signed interface
    await expect(client.call("deleteEverything")).rejects.toMatchObject({ name: "ClientConfigError", field: "operationId" });
  });
});

describe("the key-based data mode", () => {
  it("returns data on code 200 and sends the bearer key", async () => {
    server = await startServer(() => ({
      headers: { "content-type": "application/json" },
      body: '{"code":200,"message":"success","data":{"merchants":[],"pagination":{"page":1,"limit":20,"total":0,"pages":0}}}',
    }));
    const client = createKeyedClient({ baseUrl: `${server.origin}/v1`, apiKey: "key-123" });
    const data = await client.call("listAccountMerchants", { params: { query: { status: "active" } } });
    expect(data.pagination.total).toBe(0);
    expect(server.received[0]!.headers.authorization).toBe("Bearer key-123");
    expect(server.received[0]!.url).toBe("/v1/merchants?status=active");
  });

  it("throws ApiError with the key-based registry entry and its `message`", async () => {
    server = await startServer(() => ({
      status: 401,
      headers: { "content-type": "application/json" },
      body: '{"code":401,"message":"unknown API key","data":null}',
    }));
    const client = createKeyedClient({ baseUrl: `${server.origin}/v1`, apiKey: "bad" });
    await expect(client.call("listAccountMerchants")).rejects.toMatchObject({
      name: "ApiError",
      code: 401,
      message: "unknown API key",
      errorName: "KEYED_UNAUTHORIZED",
      operationId: "listAccountMerchants",
    });
  });
});
