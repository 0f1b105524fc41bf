// orval (pinned; `client: "fetch"`) generates functions that hand every request to a mutator, a
// fetch function of the app's own (`override.mutator`). The mutator is the hook for both: it
// sends through createSigningFetch (signed over the exact body bytes) and parses the answer with
// parseJsonLossless, so ids above 2^53 stay exact. Without a mutator, orval's generated code
// calls JSON.parse itself.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "orval";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigintBodyChecks, DEMO, PACKAGE_ENTRY, SIGNED_SPEC, generationDir, runPaymentFlow, startFlowSandbox, type FlowClient, type FlowSandbox, expectRoundedOrderIdLost } from "./flow.js";

type Envelope = { code: number; msg: string; data: unknown };
type Answer = Promise<{ data: Envelope; status: number }>;
type Generated = {
  syncCustomer(body: unknown): Answer;
  createOrder(body: unknown): Answer;
  getOrder(orderId: unknown, query: unknown): Answer;
  payOrder(orderId: unknown, body: unknown): Answer;
  queryPayment(query: unknown): Answer;
};
type Mutator = { configure(settings: { baseUrl: string; appKey: string; appSecret: string; lossless: boolean }): void };

let generated: ReturnType<typeof generationDir>;
let sandbox: FlowSandbox;
let api: Generated;
let mutator: Mutator;

beforeAll(async () => {
  generated = generationDir("orval");
  // The mutator docs/other-languages.md shows (plus a switch to show what happens without it).
  writeFileSync(
    join(generated.dir, "mop-fetch.ts"),
    `import { createSigningFetch, parseJsonLossless } from ${JSON.stringify(PACKAGE_ENTRY)};

let baseUrl = "";
let signedFetch: typeof fetch = fetch;
let parse: (text: string) => unknown = parseJsonLossless;

export function configure(settings: { baseUrl: string; appKey: string; appSecret: string; lossless: boolean }) {
  baseUrl = settings.baseUrl;
  signedFetch = createSigningFetch({ appKey: settings.appKey, appSecret: settings.appSecret });
  parse = settings.lossless ? parseJsonLossless : JSON.parse;
}

export const mopFetch = async <T>(url: string, options: RequestInit): Promise<T> => {
  const response = await signedFetch(baseUrl + url, options);
  const text = await response.text();
  return { data: text === "" ? undefined : parse(text), status: response.status, headers: response.headers } as T;
};
`,
  );
  const [, started] = await Promise.all([
    generate({
      input: { target: SIGNED_SPEC },
      output: {
        target: join(generated.dir, "api.ts"),
        client: "fetch",
        override: { mutator: { path: join(generated.dir, "mop-fetch.ts"), name: "mopFetch" } },
      },
    }),
    startFlowSandbox(),
  ]);
  sandbox = started;
  api = (await import(join(generated.dir, "api.ts"))) as Generated;
  mutator = (await import(join(generated.dir, "mop-fetch.ts"))) as Mutator;
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  generated?.remove();
});

function flowClient(): FlowClient {
  const data = async <T>(answer: Answer): Promise<T> => {
    const { data: envelope, status } = await answer;
    if (envelope?.code !== 0) throw Object.assign(new Error(`HTTP ${status}`), { status, body: envelope });
    return envelope.data as T;
  };
  return {
    syncCustomer: (body) => data(api.syncCustomer(body)),
    createOrder: (body) => data(api.createOrder(body)),
    getOrder: (orderId, merchantId) => data(api.getOrder(orderId, { merchantId })),
    payOrder: (orderId, body) => data(api.payOrder(orderId, body)),
    queryPayment: (tradeNo) => data(api.queryPayment({ tradeNo })),
  };
}

describe("orval fetch client with a mutator over createSigningFetch and parseJsonLossless", () => {
  it("completes the payment flow against the sandbox's large order ids", async () => {
    mutator.configure({ baseUrl: `${sandbox.url}/open-api/v1`, ...DEMO, lossless: true });
    await runPaymentFlow(flowClient(), sandbox.url, "orval-user");
  });

  bigintBodyChecks(() => {
    mutator.configure({ baseUrl: `${sandbox.url}/open-api/v1`, ...DEMO, lossless: true });
    return flowClient();
  });

  it("parsing with JSON.parse instead, the order id is rounded and getOrder finds no such order", async () => {
    mutator.configure({ baseUrl: `${sandbox.url}/open-api/v1`, ...DEMO, lossless: false });
    const client = flowClient();
    await expectRoundedOrderIdLost(client, "orval-plain", { status: 404, body: { code: 300001 } });
  });
});
