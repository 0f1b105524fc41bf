import { afterEach, describe, expect, it } from "vitest";
import { createSignedClient } from "../../src/client/index.js";
import { appKey, appSecret, okEnvelope, startServer, type TestServer } from "./support.js";

// 2^63 - 1, the largest int64, and 2^53 + 1, the first integer a double cannot hold.
const INT64_MAX = 9223372036854775807n;
const FIRST_UNSAFE = 9007199254740993n;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Digits of a JSON integer field in raw JSON text, read without any number conversion. */
const digitsOf = (text: string, field: string) => new RegExp(`"${field}":(-?\\d+)`).exec(text)?.[1];

describe("int64 ids", () => {
  it("go out exactly in a JSON body and come back exactly from the answer", async () => {
    // The fake service answers with the userId digits it received, as the new order's id.
    server = await startServer((request) => okEnvelope(digitsOf(request.body.toString("utf8"), "userId") ?? "null"));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });

    const id = await client.call("createOrder", {
      body: {
        merchantId: INT64_MAX,
        userId: FIRST_UNSAFE,
        orderType: 1,
        items: [{ itemType: 1, itemId: INT64_MAX, itemName: "x", price: 1, quantity: 1 }],
      },
    });

    const sent = server.received[0]!.body.toString("utf8");
    expect(sent).toBe(
      '{"merchantId":9223372036854775807,"userId":9007199254740993,"orderType":1,' +
        '"items":[{"itemType":1,"itemId":9223372036854775807,"itemName":"x","price":1,"quantity":1}]}',
    );
    expect(server.received[0]!.verification.ok).toBe(true);
    expect(id).toBe(FIRST_UNSAFE);
  });

  it("go out exactly as path and query parameters and come back exactly", async () => {
    server = await startServer((request) => {
      const match = /^\/open-api\/v1\/orders\/(\d+)\?merchantId=(\d+)$/.exec(request.url);
      const [orderId, merchantId] = [match?.[1] ?? "0", match?.[2] ?? "0"];
      return okEnvelope(
        `{"id":${orderId},"merchantId":${merchantId},"storeId":null,"totalAmount":1,"status":0,"items":[],` +
          `"remark":null,"createTime":"2026-11-22T10:15:30+08:00","payTime":null,"completeTime":null}`,
      );
    });
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });

    const order = await client.call("getOrder", { params: { path: { orderId: INT64_MAX }, query: { merchantId: FIRST_UNSAFE } } });

    expect(server.received[0]!.url).toBe("/open-api/v1/orders/9223372036854775807?merchantId=9007199254740993");
    expect(order.id).toBe(INT64_MAX);
    expect(order.merchantId).toBe(FIRST_UNSAFE);
    // Safe integers stay plain numbers.
    expect(order.totalAmount).toBe(1);
  });

  it("are exact through the raw typed methods too (json() of the answer is lossless)", async () => {
    server = await startServer(() => okEnvelope("9223372036854775807"));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });

    const { data } = await client.POST("/orders", {
      body: { merchantId: 1, userId: 1, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "x", price: 1, quantity: 1 }] },
    });

    expect(data?.code === 0 ? data.data : data).toBe(INT64_MAX); // the 200 schema admits error envelopes too
  });
});
