// call() without middleware takes a direct path (URL, headers and body built with
// openapi-fetch's own helpers, signed over the body text, fetched by URL); with any middleware it
// goes through openapi-fetch. Both must put the same request on the wire, signed so the server's
// verifier accepts it. And the LosslessResponse they answer is built without a body stream.
import { afterEach, describe, expect, it } from "vitest";
import { createKeyedClient, createSignedClient, LosslessResponse } from "../../src/index.js";
import { appKey, appSecret, okEnvelope, startServer, type Received, type TestServer } from "./support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BIG = 9007199254740993n;
const PER_REQUEST = new Set(["x-timestamp", "x-nonce", "x-sign", "host", "connection", "content-length"]);
const stable = (request: Received) => ({
  method: request.method,
  url: request.url,
  body: request.body.toString("utf8"),
  headers: Object.fromEntries(Object.entries(request.headers).filter(([name]) => !PER_REQUEST.has(name))),
  verified: request.verification.ok,
});

describe("the direct path of call()", () => {
  it.each([
    ["getOrder: path, query and header params, an int64 id in the path", "getOrder", { params: { path: { orderId: BIG }, query: { merchantId: 10001 } }, headers: { "X-Trace": "t-1" } }],
    ["listStores: query params only", "listStores", { params: { query: { merchantId: 10001, pageNo: 2, pageSize: 5 } } }],
    ["createOrder: a JSON body with an int64 id", "createOrder", { body: { merchantId: 10001, userId: BIG, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Tea", price: 1800, quantity: 2 }] } }],
  ] as const)("sends what the openapi-fetch path sends (%s)", async (_name, operationId, init) => {
    server = await startServer(() => okEnvelope(`{"orderId":${BIG}}`));
    const plain = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, retry: false });
    // A middleware that changes nothing sends the call through openapi-fetch.
    const viaMiddleware = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, retry: false, middleware: [{ onRequest: () => undefined }] });
    const direct = await plain.call(operationId as "getOrder", init as never);
    const through = await viaMiddleware.call(operationId as "getOrder", init as never);
    expect(direct).toEqual(through);
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received as [Received, Received];
    expect(stable(first)).toEqual(stable(second));
    expect(first.verification.ok).toBe(true);
  });

  it("leaves the direct path while a middleware is registered with use(), and takes it again after eject()", async () => {
    server = await startServer(() => okEnvelope("[]"));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    const seen: string[] = [];
    const spy = { onRequest: ({ request }: { request: Request }) => void seen.push(request.url) };
    client.use(spy);
    await client.call("listMerchants");
    client.eject(spy);
    await client.call("listMerchants");
    expect(seen).toHaveLength(1);
    expect(server.received.map((request) => request.verification.ok)).toEqual([true, true]);
  });

  it("authenticates the key-based client's direct calls with the bearer key and a JSON content type", async () => {
    server = await startServer(() => ({ headers: { "content-type": "application/json" }, body: '{"code":200,"message":"ok","data":{"merchants":[],"total":0}}' }));
    const keyed = createKeyedClient({ baseUrl: `${server.origin}/v1`, apiKey: "demo-api-key" });
    await keyed.call("listAccountMerchants", { params: { query: { page: 1, limit: 20 } } });
    const [request] = server.received as [Received];
    expect(request.headers.authorization).toBe("Bearer demo-api-key");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.url).toBe("/v1/merchants?page=1&limit=20");
  });
});

describe("LosslessResponse", () => {
  const make = (status = 200, text = '{"id":9007199254740993}') => new LosslessResponse(text, { status, headers: { "content-type": "application/json" } }, { url: "http://x/", redirected: false });

  it("gives the body as a stream only when asked, with the text's bytes", async () => {
    const answer = make();
    expect(answer.bodyUsed).toBe(false);
    const stream = answer.body;
    expect(stream).not.toBeNull();
    expect(await new Response(stream).text()).toBe('{"id":9007199254740993}');
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.text()).rejects.toThrow(TypeError);
  });

  it("reads once through text(), json(), arrayBuffer() or blob(), as Response does", async () => {
    const byText = make();
    expect(await byText.text()).toBe('{"id":9007199254740993}');
    expect(byText.bodyUsed).toBe(true);
    await expect(byText.json()).rejects.toThrow(TypeError);
    expect(make().bodyUsed).toBe(false);
    expect(await make().json()).toEqual({ id: 9007199254740993n });
    expect(new TextDecoder().decode(await make().arrayBuffer())).toBe('{"id":9007199254740993}');
    const blob = await make().blob();
    expect([await blob.text(), blob.type]).toEqual(['{"id":9007199254740993}', "application/json"]);
    const clone = make().clone();
    expect(await clone.json()).toEqual({ id: 9007199254740993n });
  });

  it("has no body for statuses without one", async () => {
    const empty = make(204, "");
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe("");
  });
});
