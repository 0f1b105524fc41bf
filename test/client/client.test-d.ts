// Type-level tests: the generated types reach through the client, so a wrong body field or a
// missing path parameter is a compile error, and the data mode returns the envelope's data type.
import { assertType, describe, expectTypeOf, it } from "vitest";
import type { components as Keyed } from "../../generated/keyed.js";
import type { components } from "../../generated/signed.js";
import {
  createKeyedClient,
  createSignedClient,
  paginate,
  type ApiError,
  type OperationData,
} from "../../src/client/index.js";
import type { CallbackEvent, CallbackVerification } from "../../src/callbacks/index.js";

type Schemas = components["schemas"];

const client = createSignedClient({ baseUrl: "http://127.0.0.1:4010/open-api/v1", appKey: "k", appSecret: "s" });
const keyed = createKeyedClient({ baseUrl: "http://127.0.0.1:4010/v1", apiKey: "k" });

const orderBody: Schemas["CreateOrderRequest"] = {
  merchantId: 10001n,
  userId: 1,
  orderType: 1,
  items: [{ itemType: 1, itemId: 1, itemName: "Latte", price: 2800, quantity: 1 }],
};

describe("the data mode", () => {
  it("returns the envelope's data type", () => {
    expectTypeOf(client.call("createOrder", { body: orderBody })).resolves.toEqualTypeOf<Schemas["OrderIdEnvelope"]["data"]>();
    expectTypeOf(client.call("getOrder", { params: { path: { orderId: 1 }, query: { merchantId: 1 } } })).resolves.toEqualTypeOf<Schemas["Order"]>();
    expectTypeOf(client.call("queryPayment", { params: { query: { tradeNo: "1" } } })).resolves.toEqualTypeOf<Schemas["PaymentTrade"]>();
    expectTypeOf(client.call("listStores")).resolves.toEqualTypeOf<Schemas["StorePage"]>();
    expectTypeOf(keyed.call("listAccountMerchants")).resolves.toEqualTypeOf<Keyed["schemas"]["AccountMerchantListEnvelope"]["data"]>();
    expectTypeOf<OperationData<import("../../generated/signed.js").operations["getMerchant"]>>().toEqualTypeOf<Schemas["MerchantDetail"]>();
  });

  it("types int64 ids as number | bigint", () => {
    expectTypeOf<Schemas["Order"]["id"]>().toEqualTypeOf<number | bigint>();
    assertType<Parameters<typeof client.call<"getOrder">>[0]>("getOrder");
  });

  it("refuses a wrong body field type", () => {
    // @ts-expect-error price must be a number (fen), not a string
    void client.call("createOrder", { body: { ...orderBody, items: [{ itemType: 1, itemId: 1, itemName: "x", price: "28.00", quantity: 1 }] } });
    // @ts-expect-error orderType 9 is not one of the enum values
    void client.call("createOrder", { body: { ...orderBody, orderType: 9 } });
    // @ts-expect-error an unknown field in the body
    void client.call("createOrder", { body: { ...orderBody, discount: 5 } });
  });

  it("refuses a missing body or required parameter", () => {
    // @ts-expect-error createOrder needs its body
    void client.call("createOrder");
    // @ts-expect-error getOrder needs the orderId path parameter
    void client.call("getOrder", { params: { query: { merchantId: 1 } } });
    // @ts-expect-error getOrder needs the merchantId query parameter
    void client.call("getOrder", { params: { path: { orderId: 1 } } });
    // @ts-expect-error tradeNo is a string of digits, not a number
    void client.call("queryPayment", { params: { query: { tradeNo: 1 } } });
    // @ts-expect-error not an operationId
    void client.call("createOrders", { body: orderBody });
  });

  it("lets operations without required input be called without init", () => {
    assertType<Promise<Schemas["StorePage"]>>(client.call("listStores"));
    assertType<Promise<Schemas["MerchantPage"]>>(client.call("listMerchants", { params: { query: { status: 2 } } }));
  });
});

describe("the raw typed methods", () => {
  it("check paths, params and bodies like openapi-fetch", () => {
    void client.POST("/orders", { body: orderBody });
    // @ts-expect-error a wrong body field type
    void client.POST("/orders", { body: { ...orderBody, userId: "1" } });
    // @ts-expect-error a missing required path parameter
    void client.GET("/orders/{orderId}", { params: { query: { merchantId: 1 } } });
    // @ts-expect-error no such path
    void client.GET("/order");
  });
});

describe("paginate", () => {
  it("yields the list's item type", () => {
    expectTypeOf(paginate(client, "listStores")).toEqualTypeOf<AsyncIterable<Schemas["Store"]>>();
    expectTypeOf(paginate(client, "listMerchants")).toEqualTypeOf<AsyncIterable<Schemas["MerchantListItem"]>>();
    expectTypeOf(paginate(keyed, "listAccountMerchants")).toEqualTypeOf<AsyncIterable<Keyed["schemas"]["AccountMerchant"]>>();
  });

  it("requires the query when the operation has required query parameters", () => {
    void paginate(client, "listNearbyStores", { latitude: 31.2, longitude: 121.5 });
    // @ts-expect-error listNearbyStores needs latitude and longitude
    void paginate(client, "listNearbyStores");
    // @ts-expect-error getOrder is not a list
    void paginate(client, "getOrder");
    // @ts-expect-error the key-based list is not on the signed client
    void paginate(client, "listAccountMerchants");
  });
});

describe("errors and callbacks", () => {
  it("exposes the ApiError fields", () => {
    expectTypeOf<ApiError["code"]>().toEqualTypeOf<number>();
    expectTypeOf<ApiError["operationId"]>().toEqualTypeOf<string>();
    expectTypeOf<ApiError["errorName"]>().toEqualTypeOf<string | undefined>();
  });

  it("types a verified callback event as the union of the spec's webhook payloads", () => {
    expectTypeOf<CallbackEvent>().toEqualTypeOf<
      Schemas["PaymentSucceededEvent"] | Schemas["MemberCardApplicationApprovedEvent"] | Schemas["MemberCardApplicationRejectedEvent"]
    >();
    const verification = {} as CallbackVerification;
    if (verification.ok && verification.event.type === "payment.succeeded") {
      expectTypeOf(verification.event.data.tradeNo).toEqualTypeOf<string>();
    }
  });
});
