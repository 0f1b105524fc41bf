// openapi-typescript-codegen (pinned; its fetch client) generates services that call the global
// fetch and read answers with response.json(). It has no fetch option, so the lossless fetch has
// to be installed as globalThis.fetch, scoped to the API's base URL; its hook for signing is the
// OpenAPI.HEADERS resolver, which is handed the request options and signs the body text the
// generated getRequestBody() produces (the exact bytes sent).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "openapi-typescript-codegen";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LosslessJsonResponse } from "../../src/client/index.js";
import { bigintBodyChecks, DEMO, PACKAGE_ENTRY, SIGNED_SPEC, generationDir, runPaymentFlow, startFlowSandbox, type FlowClient, type FlowSandbox, expectRoundedOrderIdLost } from "./flow.js";

type Envelope = { code: number; msg: string; data: unknown };
type Services = {
  CustomersService: { syncCustomer(body: unknown): Promise<Envelope> };
  OrdersService: {
    createOrder(body: unknown): Promise<Envelope>;
    getOrder(orderId: unknown, merchantId: unknown): Promise<Envelope>;
    payOrder(orderId: unknown, body: unknown): Promise<Envelope>;
  };
  PaymentService: { queryPayment(tradeNo: string): Promise<Envelope> };
};
type Setup = { configure(baseUrl: string, appKey: string, appSecret: string): () => void; services: Services };

let generated: ReturnType<typeof generationDir>;
let sandbox: FlowSandbox;
let setup: Setup;

beforeAll(async () => {
  generated = generationDir("otc");
  const [, started] = await Promise.all([
    generate({ input: SIGNED_SPEC, output: join(generated.dir, "client"), httpClient: "fetch" }),
    startFlowSandbox(),
  ]);
  sandbox = started;
  // The set-up docs/other-languages.md shows.
  writeFileSync(
    join(generated.dir, "setup.ts"),
    `import { OpenAPI } from "./client/index";
import { getRequestBody } from "./client/core/request";
import { createLosslessFetch, signRequestHeaders } from ${JSON.stringify(PACKAGE_ENTRY)};
export * as services from "./client/index";

export function configure(baseUrl: string, appKey: string, appSecret: string): () => void {
  OpenAPI.BASE = baseUrl;
  // Signs the body text the generated code is about to send (getRequestBody is what it sends).
  OpenAPI.HEADERS = async (options) => ({ ...signRequestHeaders({ appKey, appSecret, body: getRequestBody(options) }) });
  // The generated services call the global fetch: answers from the API get a lossless json().
  const plainFetch = globalThis.fetch;
  const lossless = createLosslessFetch({ fetch: plainFetch });
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return (url.startsWith(OpenAPI.BASE + "/") ? lossless : plainFetch)(input, init);
  };
  return () => { globalThis.fetch = plainFetch; };
}
`,
  );
  setup = (await import(join(generated.dir, "setup.ts"))) as Setup;
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  generated?.remove();
});

function flowClient({ CustomersService, OrdersService, PaymentService }: Services): FlowClient {
  const data = async <T>(envelope: Promise<Envelope>): Promise<T> => {
    const value = await envelope;
    expect(value.code).toBe(0);
    return value.data as T;
  };
  return {
    syncCustomer: (body) => data(CustomersService.syncCustomer(body)),
    createOrder: (body) => data(OrdersService.createOrder(body)),
    getOrder: (orderId, merchantId) => data(OrdersService.getOrder(orderId, merchantId)),
    payOrder: (orderId, body) => data(OrdersService.payOrder(orderId, body)),
    queryPayment: (tradeNo) => data(PaymentService.queryPayment(tradeNo)),
  };
}

describe("openapi-typescript-codegen (fetch) with the lossless fetch installed for the API's base URL", () => {
  it("completes the payment flow against the sandbox's large order ids", async () => {
    const restore = setup.configure(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret);
    try {
      await runPaymentFlow(flowClient(setup.services), sandbox.url, "otc-user");
      // Other URLs keep the engine's fetch untouched.
      const other = await fetch(`${sandbox.url}/sandbox/clock`);
      expect(other).not.toBeInstanceOf(LosslessJsonResponse);
    } finally {
      restore();
    }
  });

  describe("request bodies", () => {
    let restore: (() => void) | undefined;
    beforeEach(() => {
      restore = setup.configure(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret);
    });
    afterEach(() => restore?.());
    bigintBodyChecks(() => flowClient(setup.services));
  });

  it("without it, the order id is rounded and getOrder finds no such order", async () => {
    const restore = setup.configure(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret);
    restore(); // signing stays; the global fetch is the engine's again
    const client = flowClient(setup.services);
    // The generated ApiError carries the answer's body.
    await expectRoundedOrderIdLost(client, "otc-plain", { status: 404, body: { code: 300001 } });
  });
});
