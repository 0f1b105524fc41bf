// openapi-zod-client (pinned) generates a Zodios client: axios underneath, zod schemas for every
// parameter and answer. axios is not fetch, so the adapter is axios's own pair of hooks:
// transformRequest writes the body with stringifyJson and signs that exact text, and
// transformResponse parses with parseJsonLossless. zod's schemas say z.number() for int64 and
// refuse a bigint, so Zodios's validation has to be off (`validate: false`): that is the price of
// exact ids with this generator.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateZodClientFromOpenAPI } from "openapi-zod-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO, orderForBigMerchant, PACKAGE_ENTRY, SIGNED_SPEC, generationDir, runPaymentFlow, startFlowSandbox, type FlowClient, type FlowSandbox, expectRoundedOrderIdLost } from "./flow.js";

type Envelope = { code: number; msg: string; data: unknown };
type Zodios = {
  syncCustomer(body: unknown): Promise<Envelope>;
  createOrder(body: unknown): Promise<Envelope>;
  getOrder(config: unknown): Promise<Envelope>;
  payOrder(body: unknown, config: unknown): Promise<Envelope>;
  queryPayment(config: unknown): Promise<Envelope>;
};
type Setup = {
  losslessClient(baseUrl: string, appKey: string, appSecret: string): Zodios;
  defaultClient(baseUrl: string, appKey: string, appSecret: string): Zodios;
};

let generated: ReturnType<typeof generationDir>;
let sandbox: FlowSandbox;
let setup: Setup;

beforeAll(async () => {
  generated = generationDir("zod");
  const [, started] = await Promise.all([
    generateZodClientFromOpenAPI({
      openApiDoc: JSON.parse(readFileSync(SIGNED_SPEC, "utf8")) as never,
      distPath: join(generated.dir, "api.ts"),
      options: { withAlias: true },
    }),
    startFlowSandbox(),
  ]);
  sandbox = started;
  // The set-up docs/other-languages.md shows, and the generator's default for comparison
  // (signed the same way, but parsed with JSON.parse and validated by zod).
  writeFileSync(
    join(generated.dir, "setup.ts"),
    `import { createApiClient } from "./api";
import { parseJsonLossless, signRequestHeaders, stringifyJson } from ${JSON.stringify(PACKAGE_ENTRY)};
import type { AxiosRequestHeaders } from "axios";

function signingTransform(appKey: string, appSecret: string, write: (data: unknown) => string | undefined) {
  return (data: unknown, headers: AxiosRequestHeaders) => {
    const body = data === undefined ? undefined : write(data);
    if (body !== undefined) headers.setContentType("application/json");
    headers.set({ ...signRequestHeaders({ appKey, appSecret, body }) });
    return body;
  };
}

export function losslessClient(baseUrl: string, appKey: string, appSecret: string) {
  return createApiClient(baseUrl, {
    validate: false, // zod's z.number() refuses the bigint ids
    axiosConfig: {
      transformRequest: [signingTransform(appKey, appSecret, (data) => stringifyJson(data))],
      transformResponse: [(data: unknown) => (typeof data === "string" && data !== "" ? parseJsonLossless(data) : data)],
    },
  });
}

export function defaultClient(baseUrl: string, appKey: string, appSecret: string) {
  return createApiClient(baseUrl, {
    axiosConfig: { transformRequest: [signingTransform(appKey, appSecret, (data) => JSON.stringify(data))] },
  });
}
`,
  );
  setup = (await import(join(generated.dir, "setup.ts"))) as Setup;
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  generated?.remove();
});

function flowClient(api: Zodios): FlowClient {
  const data = async <T>(answer: Promise<Envelope>): Promise<T> => {
    const envelope = await answer;
    expect(envelope.code).toBe(0);
    return envelope.data as T;
  };
  return {
    syncCustomer: (body) => data(api.syncCustomer(body)),
    createOrder: (body) => data(api.createOrder(body)),
    getOrder: (orderId, merchantId) => data(api.getOrder({ params: { orderId }, queries: { merchantId } })),
    payOrder: (orderId, body) => data(api.payOrder(body, { params: { orderId } })),
    queryPayment: (tradeNo) => data(api.queryPayment({ queries: { tradeNo } })),
  };
}

describe("openapi-zod-client (Zodios on axios) with lossless transforms", () => {
  it("completes the payment flow against the sandbox's large order ids", async () => {
    const api = setup.losslessClient(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret);
    await runPaymentFlow(flowClient(api), sandbox.url, "zod-user");
  });

  it("a body holding a bigint id goes out exactly (transformRequest writes it with stringifyJson)", async () => {
    await orderForBigMerchant(flowClient(setup.losslessClient(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret)), "zod-big-body");
  });

  it("with the generator's defaults, the order id is rounded and getOrder finds no such order", async () => {
    const client = flowClient(setup.defaultClient(`${sandbox.url}/open-api/v1`, DEMO.appKey, DEMO.appSecret));
    // axios throws for the 404; its answer carries the envelope.
    await expectRoundedOrderIdLost(client, "zod-plain", { response: { status: 404, data: { code: 300001 } } });
  });
});
