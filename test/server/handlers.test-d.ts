// Type-level tests of the server kit's handler tables: every type comes from generated/, so an
// unknown operationId, a missing handler, a wrong output field or a body field the spec lacks
// is a compile error, and path and query ids arrive exact (bigint) with defaults applied.
import { describe, expectTypeOf, it } from "vitest";
import type { components } from "../../generated/signed.js";
import type { GetStoreOutput } from "../../generated/signed.handlers.js";
import {
  createKeyedRouter,
  createSignedRouter,
  keyedError,
  signedError,
  type SignedErrorNameOf,
  type Handler,
  type HandlerInput,
  type HandlerOutput,
  type KeyedHandlers,
  type SignedHandlers,
} from "../../src/server/index.js";

type Schemas = components["schemas"];
const apps = () => undefined;

declare const store: HandlerOutput<"getStore">;
declare const hours: HandlerOutput<"getStoreBusinessHours">;
declare const rest: Omit<SignedHandlers, "getStore">;

describe("handler inputs", () => {
  it("gives path and query int64 ids as bigint, other parameters as generated", () => {
    expectTypeOf<HandlerInput<"getOrder">["path"]["orderId"]>().toEqualTypeOf<bigint>();
    expectTypeOf<HandlerInput<"getOrder">["query"]["merchantId"]>().toEqualTypeOf<bigint>();
    expectTypeOf<HandlerInput<"listStores">["query"]["merchantId"]>().toEqualTypeOf<bigint | undefined>();
    expectTypeOf<HandlerInput<"queryPayment">["query"]["tradeNo"]>().toEqualTypeOf<string>();
  });

  it("applies the spec's defaults: a query parameter or body property with a default is present", () => {
    expectTypeOf<HandlerInput<"listStores">["query"]["pageNo"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"listStores">["query"]["pageSize"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"createCashierSession">["body"]["expireMinutes"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"createCashierSession">["body"]["returnUrl"]>().toEqualTypeOf<string | undefined>();
  });

  it("gives body int64 fields as bigint however deep (the request step converts them), and the request facts", () => {
    expectTypeOf<HandlerInput<"createOrder">["body"]["merchantId"]>().toEqualTypeOf<bigint>();
    expectTypeOf<HandlerInput<"createOrder">["body"]["storeId"]>().toEqualTypeOf<bigint | undefined>();
    expectTypeOf<HandlerInput<"createOrder">["body"]["items"][number]["itemId"]>().toEqualTypeOf<bigint>();
    expectTypeOf<HandlerInput<"createOrder">["body"]["items"][number]["price"]>().toEqualTypeOf<number>();
    expectTypeOf<HandlerInput<"getStore">["body"]>().toEqualTypeOf<undefined>();
    expectTypeOf<HandlerInput<"getStore">["appKey"]>().toEqualTypeOf<string>();
    expectTypeOf<HandlerInput<"getStore">["origin"]>().toEqualTypeOf<string>();
  });

  it("refuses a body field the spec lacks", () => {
    const handler: Handler<"syncCustomer"> = (input) => {
      // @ts-expect-error openUserID is not a field of SyncCustomerRequest (openUserId is)
      void input.body.openUserID;
      return { appUserId: 1n, openUserId: input.body.openUserId, created: true };
    };
    void handler;
  });

  it("refuses a query parameter or path parameter the operation lacks", () => {
    const handler: Handler<"getStore"> = (input) => {
      // @ts-expect-error getStore has no query parameter merchantId
      void input.query.merchantId;
      // @ts-expect-error the path parameter is storeId
      void input.path.id;
      return store;
    };
    void handler;
  });
});

describe("handler outputs", () => {
  it("is the data of the operation's success envelope", () => {
    expectTypeOf<HandlerOutput<"getStore">>().toEqualTypeOf<Schemas["StoreDetail"]>();
  });

  it("refuses a misspelt or mistyped output field", () => {
    // @ts-expect-error storeName is not a field of Store (name is), and name is then missing
    const misspelt: Handler<"getStore"> = () => ({ ...store, name: undefined, storeName: "x" });
    // @ts-expect-error status is an integer enum, not a string
    const mistyped: Handler<"getStore"> = () => ({ ...store, status: "open" });
    // @ts-expect-error an answer of another operation
    const wrongData: Handler<"getStore"> = () => hours;
    void [misspelt, mistyped, wrongData];
  });

  it("refuses an extra field when the answer is written as the output type", () => {
    const handler: Handler<"getStore"> = (): HandlerOutput<"getStore"> => ({
      ...store,
      // @ts-expect-error Store has no field internalNote
      internalNote: "x",
    });
    void handler;
  });
});

describe("handler tables", () => {
  it("accepts a complete table", () => {
    createSignedRouter({ handlers: { ...rest, getStore: () => store }, apps });
  });

  it("refuses a missing handler unless the table is declared partial", () => {
    // @ts-expect-error getStore is missing
    createSignedRouter({ handlers: rest, apps });
    createSignedRouter({ handlers: { getStore: () => store }, apps, partial: true });
  });

  it("refuses a handler for an operationId the spec lacks", () => {
    // @ts-expect-error getShop is not an operation of the signed spec
    createSignedRouter({ handlers: { getStore: () => store, getShop: () => store }, apps, partial: true });
    // @ts-expect-error a misspelt operationId in a complete table
    const table: SignedHandlers = { ...rest, getStore: () => store, getstore: () => store };
    void table;
  });

  it("types the key-based table too", () => {
    const keyed: KeyedHandlers = {
      listAccountMerchants: (input) => {
        expectTypeOf(input.apiKey).toEqualTypeOf<string>();
        // page and limit have defaults: present, as numbers.
        return { merchants: [], pagination: { page: input.query.page, limit: input.query.limit, total: 0, pages: 0 } };
      },
    };
    createKeyedRouter({ handlers: keyed, apiKeys: () => undefined });
    // @ts-expect-error the key-based interface has no getStore
    createKeyedRouter({ handlers: { ...keyed, getStore: () => store }, apiKeys: () => undefined });
  });
});

describe("errors per operation (openapi/errors.yaml appliesTo, generated/signed.handlers.ts)", () => {
  it("knows each operation's declared error names", () => {
    expectTypeOf<"ORDER_NOT_FOUND">().toMatchTypeOf<SignedErrorNameOf<"getOrder">>();
    expectTypeOf<"VALIDATION_FAILED">().toMatchTypeOf<SignedErrorNameOf<"getStore">>();
    expectTypeOf<"STORE_NOT_FOUND">().not.toMatchTypeOf<SignedErrorNameOf<"getOrder">>();
    expectTypeOf<"CARD_TIER_NOT_FOUND">().not.toMatchTypeOf<SignedErrorNameOf<"listStores">>();
  });

  it("accepts a declared error, returned or made with input.refuse", () => {
    const returned: Handler<"getOrder"> = ({ path }) => signedError("ORDER_NOT_FOUND", `orderId ${path.orderId}: no such order.`);
    const refused: Handler<"getOrder"> = ({ refuse }) => {
      throw refuse("ORDER_NOT_FOUND", "no such order");
    };
    void [returned, refused];
  });

  it("refuses an error name the operation does not declare, returned or made with input.refuse", () => {
    // @ts-expect-error getOrder does not declare STORE_NOT_FOUND (200003)
    const returned: Handler<"getOrder"> = () => signedError("STORE_NOT_FOUND", "no such store");
    const refused: Handler<"getOrder"> = ({ refuse }) => {
      // @ts-expect-error getOrder does not declare CARD_TEMPLATE_NOT_FOUND
      throw refuse("CARD_TEMPLATE_NOT_FOUND", "no such template");
    };
    // @ts-expect-error a keyed error name on the signed interface
    const keyedName: Handler<"listStores"> = () => keyedError("KEYED_UNAUTHORIZED", "no");
    void [returned, refused, keyedName];
  });

  it("types the key-based refusals with the key-based names", () => {
    const keyed: KeyedHandlers = {
      listAccountMerchants: ({ refuse }) => {
        // @ts-expect-error a signed name on the key-based interface
        void refuse("VALIDATION_FAILED", "no");
        return refuse("KEYED_VALIDATION_FAILED", "no");
      },
    };
    void keyed;
  });

  it("names each operation's output, so a wrong field is reported against GetStoreOutput", () => {
    expectTypeOf<HandlerOutput<"getStore">>().toEqualTypeOf<GetStoreOutput>();
    expectTypeOf<HandlerOutput<"createOrder">>().toEqualTypeOf<number | bigint>();
  });
});
