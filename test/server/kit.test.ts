// The server kit on its own, as a platform team uses it: an Express app with the signed and the
// key-based routers over test handlers, an injected clock and nonce store. Requests are sent
// signed with the package's signing function, and some as raw bytes over a socket.
import express from "express";
import { connect, type AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyedRouter, createSignedRouter, signedError, type HandlerInput, type ServerLogger, type SignedHandlers } from "../../src/server/index.js";
import { createMemoryNonceStore, signRequestHeaders } from "../../src/signing/index.js";

const APP_KEY = "kit-app";
const SECRET = "kit-secret";
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const BIG = 9_007_199_254_740_993n; // 2^53 + 1: a Number would round it

const seen: { listStores?: HandlerInput<"listStores">; createCashierSession?: HandlerInput<"createCashierSession">; createOrder?: HandlerInput<"createOrder"> } = {};
const logged: { message: string; details?: Record<string, unknown> }[] = [];
const logger: ServerLogger = { error: (message, details) => void logged.push(details ? { message, details } : { message }) };

const handlers: Partial<SignedHandlers> = {
  listStores: (input) => {
    seen.listStores = input;
    return { list: [], total: 0, pageNo: input.query.pageNo, pageSize: input.query.pageSize };
  },
  getStore: async ({ path }) => ({
    id: path.storeId,
    merchantId: BIG,
    name: "Kit store",
    address: "1 Road",
    phone: "1",
    latitude: 30,
    longitude: 120,
    status: 0,
    province: "P",
    city: "C",
    district: "D",
    businessHours: "09:00-18:00",
    description: "",
    createTime: "2026-01-02T03:04:05+08:00",
  }),
  createOrder: (input) => {
    seen.createOrder = input;
    return BIG;
  },
  createCashierSession: (input) => {
    seen.createCashierSession = input;
    throw signedError("MERCHANT_NOT_FOUND", `merchantId ${input.body.merchantId}: the merchant does not exist.`);
  },
  // A bug: a merchant detail without its required fields.
  getMerchant: () => ({ id: 1 }) as never,
  // A refusal returned, as the handler types allow for a declared error.
  cancelOrder: ({ path, refuse }) => refuse("ORDER_NOT_FOUND", `orderId ${path.orderId}: no such order.`),
  // A bug the types cannot see (a throw is not typed): a refusal getStoreBusinessHours does not declare.
  getStoreBusinessHours: () => {
    throw signedError("ORDER_NOT_FOUND", "a refusal this operation does not declare");
  },
};

let server: Server;
let lookups = 0;
let base = "";

beforeAll(async () => {
  const app = express();
  app.use(
    "/open-api",
    createSignedRouter({
      handlers,
      partial: true,
      apps: async (appKey) => {
        lookups += 1;
        return appKey === APP_KEY ? { appSecrets: [SECRET] } : undefined;
      },
      nonceStore: createMemoryNonceStore(),
      now: () => NOW,
      logger,
    }),
  );
  app.use(
    "/v1",
    createKeyedRouter({
      handlers: {
        listAccountMerchants: ({ apiKey, query }) => ({
          merchants: [{ id: "9223372036854775807", name: apiKey, status: "active", created_at: "2026-01-02T03:04:05Z", updated_at: "2026-01-02T03:04:05Z" }],
          pagination: { page: query.page, limit: query.limit, total: 1, pages: 1 },
        }),
      },
      apiKeys: (apiKey) => (apiKey === "kit-key" ? {} : undefined),
      logger,
    }),
  );
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let nonceCounter = 0;
function signed(method: string, path: string, body?: string, patch: { timestamp?: string; nonce?: string; appKey?: string } = {}) {
  const nonce = patch.nonce ?? `kit-nonce-${++nonceCounter}-abcdef`;
  const headers: Record<string, string> = { ...signRequestHeaders({ appKey: patch.appKey ?? APP_KEY, appSecret: SECRET, body: body ?? "", now: () => NOW, nonce, ...(patch.timestamp ? { timestamp: patch.timestamp } : {}) }) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
}

async function answer(response: Response) {
  return { status: response.status, text: await response.text() };
}

describe("the signed router", () => {
  it("gives a handler exact path and query ids, the query's defaults, and the app key", async () => {
    const response = await answer(await signed("GET", `/open-api/v1/stores?merchantId=${BIG}`));
    expect(response).toEqual({ status: 200, text: '{"code":0,"msg":"success","data":{"list":[],"total":0,"pageNo":1,"pageSize":10}}' });
    expect(seen.listStores?.query).toEqual({ merchantId: BIG, pageNo: 1, pageSize: 10 });
    expect(seen.listStores?.appKey).toBe(APP_KEY);
    expect(seen.listStores?.origin).toBe(base);
  });

  it("looks the app up once per request, with a body or without, and gives it to the handler", async () => {
    const before = lookups;
    await signed("GET", "/open-api/v1/stores");
    expect(lookups - before).toBe(1);
    expect(seen.listStores?.app).toEqual({ appSecrets: [SECRET] });
    const body = `{"merchantId":10001,"userId":1,"orderType":1,"items":[{"itemType":1,"itemId":1,"itemName":"Tea","price":1,"quantity":1}]}`;
    expect((await signed("POST", "/open-api/v1/orders", body)).status).toBe(200);
    expect(lookups - before).toBe(2);
    expect(seen.createOrder?.app).toEqual({ appSecrets: [SECRET] });
  });

  it("writes an int64 answer above 2^53 exactly, after validating it", async () => {
    const response = await answer(await signed("GET", `/open-api/stores/${BIG}`));
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"id":${BIG},"merchantId":${BIG},`);
  });

  it("gives every int64 field of the body as bigint, however deep and however small, and only those", async () => {
    const body = `{"merchantId":10001,"userId":${BIG},"orderType":1,"items":[{"itemType":1,"itemId":31001,"itemName":"Tea","price":1800,"quantity":2}]}`;
    const response = await answer(await signed("POST", "/open-api/v1/orders", body));
    expect(response).toEqual({ status: 200, text: `{"code":0,"msg":"success","data":${BIG}}` });
    const given = seen.createOrder?.body;
    expect(given?.merchantId).toBe(10001n);
    expect(given?.userId).toBe(BIG);
    expect(given?.items[0]?.itemId).toBe(31001n);
    expect(given?.items[0]?.price).toBe(1800);
    expect(given?.orderType).toBe(1);
  });

  it("refuses an int64 body field written so that it cannot be read exactly, naming it", async () => {
    const body = `{"merchantId":10001,"userId":1e18,"orderType":1,"items":[{"itemType":1,"itemId":92233720368547758070,"itemName":"Tea","price":1800,"quantity":2}]}`;
    const response = await answer(await signed("POST", "/open-api/v1/orders", body));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).msg).toBe(
      "body.userId must be written as plain decimal digits (above 2^53 a number in exponent or decimal notation cannot be read exactly); body.items[0].itemId must be <= 9223372036854775807 (int64)",
    );
  });

  it("gives the body exact, with its defaults, and answers a thrown registry error with its code and status", async () => {
    const body = `{"merchantId":${BIG},"outTradeNo":"kit-1","totalAmount":100,"subject":"Tea","notifyUrl":"https://example.com/notify"}`;
    const response = await answer(await signed("POST", "/open-api/v1/payment/cashier/create", body));
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text)).toEqual({ code: 200001, msg: `merchantId ${BIG}: the merchant does not exist.`, data: null });
    expect(seen.createCashierSession?.body).toEqual({ merchantId: BIG, outTradeNo: "kit-1", totalAmount: 100, subject: "Tea", notifyUrl: "https://example.com/notify", expireMinutes: 30 });
  });

  it.each([
    ["no signature headers", () => fetch(`${base}/open-api/v1/stores`), 401, 100001],
    ["an unknown app key", () => signed("GET", "/open-api/v1/stores", undefined, { appKey: "nobody" }), 401, 100002],
    ["a timestamp 301 s old", () => signed("GET", "/open-api/v1/stores", undefined, { timestamp: String(NOW / 1000 - 301) }), 401, 100004],
  ] as const)("refuses %s before reading the body", async (_name, send, status, code) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(((await response.json()) as { code: number }).code).toBe(code);
  });

  it("refuses a replayed nonce (100005) and a body changed after signing (100003)", async () => {
    expect((await signed("GET", "/open-api/v1/stores", undefined, { nonce: "kit-replayed-nonce" })).status).toBe(200);
    const replay = await signed("GET", "/open-api/v1/stores", undefined, { nonce: "kit-replayed-nonce" });
    expect(((await replay.json()) as { code: number }).code).toBe(100005);
    const headers = signRequestHeaders({ appKey: APP_KEY, appSecret: SECRET, body: '{"openUserId":"a"}', now: () => NOW });
    const tampered = await fetch(`${base}/open-api/v1/customers/sync`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: '{"openUserId":"b"}' });
    expect(tampered.status).toBe(401);
    expect(((await tampered.json()) as { code: number }).code).toBe(100003);
  });

  it("answers a validation error naming each field, in the envelope", async () => {
    const tooLarge = await answer(await signed("GET", "/open-api/v1/stores?pageSize=101"));
    expect(tooLarge).toEqual({ status: 400, text: '{"code":100009,"msg":"query.pageSize must be <= 100","data":null}' });
    const unknown = await answer(await signed("GET", "/open-api/v1/stores?color=red"));
    expect(unknown).toEqual({ status: 400, text: '{"code":100009,"msg":"query.color is not allowed (unknown query parameter)","data":null}' });
    const body = await answer(await signed("POST", "/open-api/v1/customers/sync", '{"openUserId":"","extra":1}'));
    expect(body.status).toBe(400);
    expect(JSON.parse(body.text).msg).toMatch(/body\.extra is not allowed \(unknown property\).*body\.openUserId must NOT have fewer than 1 characters|body\.openUserId must NOT have fewer than 1 characters.*body\.extra is not allowed/);
  });

  it("answers unknown paths 100015 (404), wrong methods 100016 (405) with Allow, and an operation the table leaves out 100015", async () => {
    const unknown = await signed("GET", "/open-api/v1/shops");
    expect([unknown.status, ((await unknown.json()) as { code: number }).code]).toEqual([404, 100015]);
    const method = await signed("DELETE", "/open-api/v1/stores");
    expect([method.status, ((await method.json()) as { code: number }).code, method.headers.get("allow")]).toEqual([405, 100016, "GET"]);
    const left = await signed("GET", "/open-api/v1/orders/1?merchantId=1");
    const envelope = (await left.json()) as { code: number; msg: string };
    expect([left.status, envelope.code]).toEqual([404, 100015]);
    expect(envelope.msg).toContain("does not implement getOrder");
  });

  it("answers 100099 instead of an answer that breaks the spec, and logs why", async () => {
    const before = logged.length;
    const response = await answer(await signed("GET", "/open-api/v1/merchants/1"));
    expect(response.status).toBe(500);
    expect(JSON.parse(response.text)).toMatchObject({ code: 100099, data: null });
    const entries = logged.slice(before);
    // The culprit from the success branch alone, not every error code of the other branch of the 200's oneOf.
    expect(entries.map((entry) => entry.message)).toEqual([expect.stringMatching(/^An answer failed response validation \(getMerchant: data must have required property 'merchantName'; .*; and 7 more\); sent 100099 instead\. This is a server bug\.$/)]);
    expect(entries[0]!.message).not.toMatch(/100001|must be null|oneOf/);
    expect(entries[0]!.details?.culprit).toEqual(expect.arrayContaining([expect.stringMatching(/^data must have required property 'merchantName'/)]));
  });

  it("answers a refusal a handler returns, and turns one its operation does not declare into 100099 naming the handler", async () => {
    const returned = await signed("POST", "/open-api/v1/orders/7/cancel", JSON.stringify({ merchantId: 1 }));
    expect([returned.status, ((await returned.json()) as { code: number }).code]).toEqual([404, 300001]);
    const before = logged.length;
    const undeclared = await answer(await signed("GET", "/open-api/v1/stores/1/business-hours"));
    expect(undeclared.status).toBe(500);
    expect(JSON.parse(undeclared.text)).toMatchObject({ code: 100099, data: null });
    const entry = logged.slice(before).find((e) => e.message.startsWith("Internal error"));
    expect(String((entry?.details?.error as Error).message)).toBe(
      "The handler of getStoreBusinessHours refused with ORDER_NOT_FOUND (300001), an error getStoreBusinessHours does not declare (openapi/errors.yaml appliesTo); answered 100099 instead. The handler's message: a refusal this operation does not declare",
    );
  });

  it("refuses an oversized body by its Content-Length, over a raw socket, and closes the connection", async () => {
    const port = (server.address() as AddressInfo).port;
    const headers = signRequestHeaders({ appKey: APP_KEY, appSecret: SECRET, body: "", now: () => NOW });
    const lines = [`POST /open-api/v1/customers/sync HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Content-Type: application/json", `Content-Length: ${2 * 1024 * 1024}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""];
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(lines.join("\r\n")));
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/connection: close/i);
    expect(text).toContain('"code":100013');
  });
});

describe("the key-based router", () => {
  it("answers with its own envelope and refuses a missing bearer key with 401", async () => {
    const ok = await fetch(`${base}/v1/merchants`, { headers: { Authorization: "Bearer kit-key" } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      code: 200,
      message: "success",
      data: { merchants: [{ id: "9223372036854775807", name: "kit-key", status: "active", created_at: "2026-01-02T03:04:05Z", updated_at: "2026-01-02T03:04:05Z" }], pagination: { page: 1, limit: 20, total: 1, pages: 1 } },
    });
    const refused = await fetch(`${base}/v1/merchants`);
    expect([refused.status, ((await refused.json()) as { code: number }).code]).toEqual([401, 401]);
  });
});

describe("the handler table", () => {
  it("is refused at start-up when an operation is missing and the table is not declared partial", () => {
    expect(() => createSignedRouter({ handlers: handlers as SignedHandlers, apps: () => undefined, logger })).toThrow(/lacks syncCustomer, getOrder/);
  });

  it("is refused at start-up when it names an operation the spec lacks", () => {
    expect(() => createSignedRouter({ handlers: { getShop: () => ({}) } as never, partial: true, apps: () => undefined, logger })).toThrow(/operations the spec lacks: getShop/);
  });
});
