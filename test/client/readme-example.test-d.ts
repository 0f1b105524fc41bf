// The README's client example, type-checked so that it stays true (not run).
import { expectTypeOf, test } from "vitest";
import { ApiError, createSignedClient, paginate } from "../../src/index.js";

test("the README example compiles against the generated types", () => {
  async function example() {
    const client = createSignedClient({ baseUrl: "http://127.0.0.1:4010/open-api/v1", appKey: "k", appSecret: "s" });
    const { appUserId } = await client.call("syncCustomer", { body: { openUserId: "user-4711" } });
    const orderId = await client.call("createOrder", {
      body: { merchantId: 10001, userId: appUserId, orderType: 1, items: [{ itemType: 1, itemId: 30001, itemName: "Latte", price: 2800, quantity: 1 }] },
    });
    const { tradeNo, cashierUrl } = await client.call("payOrder", {
      params: { path: { orderId } },
      body: { merchantId: 10001, notifyUrl: "https://app.example.com/mop/notify" },
    });
    try {
      const trade = await client.call("queryPayment", { params: { query: { tradeNo } } });
      expectTypeOf(trade.tradeStatus).toEqualTypeOf<"WAIT_BUYER_PAY" | "SUCCESS" | "REFUND" | "CLOSED" | "UNKNOWN">();
      expectTypeOf(cashierUrl).toBeString();
    } catch (error) {
      if (error instanceof ApiError) expectTypeOf(error.code).toBeNumber();
    }
    for await (const store of paginate(client, "listStores", { merchantId: 10001 })) expectTypeOf(store.name).toBeString();
    expectTypeOf(orderId).toEqualTypeOf<number | bigint>();
  }
  expectTypeOf(example).toBeFunction();
});
