// swagger-typescript-api (pinned) generates a fetch client from the bundle. Its hook is the
// `customFetch` option, and it reads answers with response.json() (on a clone), so the package's
// createLosslessFetch over createSigningFetch is all it needs: ids above 2^53 stay exact.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateApi } from "swagger-typescript-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigintBodyChecks, DEMO, PACKAGE_ENTRY, SIGNED_SPEC, dataOf, generationDir, runPaymentFlow, startFlowSandbox, type FlowClient, type FlowSandbox, expectRoundedOrderIdLost } from "./flow.js";

type Envelope = { code: number; msg: string; data: unknown };
type GeneratedApi = {
  customers: { syncCustomer(body: unknown): Promise<{ data: Envelope }> };
  orders: {
    createOrder(body: unknown): Promise<{ data: Envelope }>;
    getOrder(orderId: unknown, query: unknown): Promise<{ data: Envelope }>;
    payOrder(orderId: unknown, body: unknown): Promise<{ data: Envelope }>;
  };
  payment: { queryPayment(query: unknown): Promise<{ data: Envelope }> };
};

let generated: ReturnType<typeof generationDir>;
let sandbox: FlowSandbox;
let makeApi: (lossless: boolean) => GeneratedApi;

beforeAll(async () => {
  generated = generationDir("sta");
  const [, started] = await Promise.all([
    generateApi({ input: SIGNED_SPEC, output: generated.dir, fileName: "api.ts", silent: true }),
    startFlowSandbox(),
  ]);
  sandbox = started;
  // The set-up docs/other-languages.md shows, written as a consumer would (the package entry
  // stands in for "merchant-open-platform").
  writeFileSync(
    join(generated.dir, "client.ts"),
    `import { Api } from "./api.js";
import { createLosslessFetch, createSigningFetch } from ${JSON.stringify(PACKAGE_ENTRY)};

export function makeApi(baseUrl: string, appKey: string, appSecret: string, lossless = true) {
  const signedFetch = createSigningFetch({ appKey, appSecret });
  return new Api({ baseUrl, customFetch: lossless ? createLosslessFetch({ fetch: signedFetch }) : signedFetch });
}
`,
  );
  const module = (await import(join(generated.dir, "client.ts"))) as { makeApi(baseUrl: string, key: string, secret: string, lossless?: boolean): GeneratedApi };
  makeApi = (lossless) => module.makeApi(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret, lossless);
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  generated?.remove();
});

function flowClient(api: GeneratedApi): FlowClient {
  return {
    syncCustomer: async (body) => dataOf((await api.customers.syncCustomer(body)).data, "syncCustomer"),
    createOrder: async (body) => dataOf((await api.orders.createOrder(body)).data, "createOrder"),
    getOrder: async (orderId, merchantId) => dataOf((await api.orders.getOrder(orderId, { merchantId })).data, "getOrder"),
    payOrder: async (orderId, body) => dataOf((await api.orders.payOrder(orderId, body)).data, "payOrder"),
    queryPayment: async (tradeNo) => dataOf((await api.payment.queryPayment({ tradeNo })).data, "queryPayment"),
  };
}

describe("swagger-typescript-api client with createLosslessFetch and createSigningFetch", () => {
  it("completes the payment flow against the sandbox's large order ids", async () => {
    await runPaymentFlow(flowClient(makeApi(true)), sandbox.url, "sta-user");
  });

  bigintBodyChecks(() => flowClient(makeApi(true)));

  it("without the lossless fetch, the order id is rounded and getOrder finds no such order", async () => {
    const client = flowClient(makeApi(false));
    // The generated client throws the HttpResponse of a non-2xx answer, with the envelope in `error`.
    await expectRoundedOrderIdLost(client, "sta-plain", { status: 404, error: { code: 300001 } });
  });
});
