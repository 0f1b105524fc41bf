// Portability: a third-party generator (@hey-api/openapi-ts, pinned) must turn the bundled
// specs into a TypeScript client that compiles under strict settings and covers every
// operation, and the signed client must complete the payment flow against the sandbox's large
// ids. Nothing here may go online: the spec is handed over as an object (a relative path like
// "generated/signed.openapi.json" would be read as a Hey API registry name).
//
// hey-api's fetch client parses JSON with JSON.parse(await response.text()) and offers no way to
// replace it (hey-api/hey-api#4430), so no fetch can keep ids exact. Its own way out is
// `parseAs: "text"`, after which the answer is parsed with parseJsonLossless; requests are signed
// in its request interceptor.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { createRequestSigner, parseJsonLossless, stringifyJson } from "../../src/index.js";
import { DEMO, orderForBigMerchant, runPaymentFlow, startFlowSandbox, type FlowClient, type FlowSandbox, expectRoundedOrderIdLost } from "./flow.js";

const root = packageRoot();
const tsc = join(createRequire(import.meta.url).resolve("typescript/package.json"), "..", "bin", "tsc");
const SPECS = ["signed", "keyed"] as const;
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

type Spec = { paths?: Record<string, Record<string, { operationId?: string }>>; webhooks?: Record<string, unknown> };
const specs = Object.fromEntries(SPECS.map((name) => [name, JSON.parse(readFileSync(join(root, "generated", `${name}.openapi.json`), "utf8")) as Spec]));

function operationIds(spec: Spec): string[] {
  return Object.values(spec.paths ?? {}).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([, op]) => op.operationId!),
  );
}

const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);

let dir: string;
let sandbox: FlowSandbox | undefined;
const timings: Record<string, number> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mop-hey-api-"));
  const starting = startFlowSandbox();
  for (const name of SPECS) {
    const started = performance.now();
    // The smallest plugin set that yields a usable client: the fetch client, types and SDK functions.
    await createClient({
      input: structuredClone(specs[name]) as Record<string, unknown>,
      output: join(dir, name),
      plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
      logs: { level: "silent" },
    });
    timings[`generate ${name}`] = Math.round(performance.now() - started);
  }
  // A consumer's view: strict, ESM, Node-style resolution, fetch types from the DOM lib.
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: false,
      },
      include: ["**/*.ts"],
    }),
  );
  // One typed call per client, so the SDK's option types are exercised, not only declared.
  writeFileSync(
    join(dir, "usage.ts"),
    `import { getOrder } from "./signed/index.js";
import { listAccountMerchants } from "./keyed/index.js";
export const order = getOrder({ path: { orderId: 1 }, query: { merchantId: 10001 } });
export const merchants = listAccountMerchants();
`,
  );
  sandbox = await starting;
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  console.log(`hey-api timings (ms): ${JSON.stringify(timings)}; generated into ${dir} (removed after the run)`);
  rmSync(dir, { recursive: true, force: true });
});

describe("@hey-api/openapi-ts client from the bundled specs", () => {
  it.each(SPECS)("%s: an SDK function and request/response types for every operationId", (name) => {
    const sdk = readFileSync(join(dir, name, "sdk.gen.ts"), "utf8");
    const types = readFileSync(join(dir, name, "types.gen.ts"), "utf8");
    const ids = operationIds(specs[name]!);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      expect(sdk, id).toMatch(new RegExp(`^export const ${id} = `, "m"));
      expect(types, id).toMatch(new RegExp(`^export type ${pascal(id)}Data = `, "m"));
      expect(types, id).toMatch(new RegExp(`^export type ${pascal(id)}Responses = `, "m"));
    }
    for (const webhook of Object.keys(specs[name]!.webhooks ?? {})) {
      expect(types, webhook).toMatch(new RegExp(`^export type ${pascal(webhook)}WebhookPayload = `, "m"));
    }
  });

  it("the generated clients type-check under strict TypeScript", () => {
    expect(existsSync(join(dir, "signed", "index.ts"))).toBe(true);
    const started = performance.now();
    try {
      execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      throw new Error(`tsc failed on the generated clients:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
    }
    timings["tsc"] = Math.round(performance.now() - started);
  }, 60_000);
});

type Envelope = { code: number; msg: string; data: unknown };
type Result = { data?: unknown; error?: unknown; response?: Response };
type HeyClient = { interceptors: { request: { use(fn: (request: Request) => Promise<Request>): unknown } } };
type HeySdk = Record<"syncCustomer" | "createOrder" | "getOrder" | "payOrder" | "queryPayment", (options: Record<string, unknown>) => Promise<Result>>;
type HeyClientModule = { createClient(config: unknown): HeyClient; createConfig(config: unknown): unknown };

describe("@hey-api/openapi-ts signed client against the sandbox", () => {
  async function heyClient(lossless: boolean) {
    const { createClient: create, createConfig } = (await import(join(dir, "signed", "client", "index.ts"))) as HeyClientModule;
    const sdk = (await import(join(dir, "signed", "sdk.gen.ts"))) as HeySdk;
    // The set-up docs/other-languages.md shows.
    const client = create(
      createConfig({
        baseUrl: `${sandbox!.url}/open-api/v1`,
        ...(lossless ? { parseAs: "text", bodySerializer: (body: unknown) => stringifyJson(body) ?? "" } : {}),
      }),
    );
    client.interceptors.request.use(createRequestSigner({ appKey: DEMO.appKey, appSecret: DEMO.appSecret }));
    const data = async <T>(name: keyof HeySdk, options: Record<string, unknown>): Promise<T> => {
      const result = await sdk[name]({ client, ...options });
      if (result.error !== undefined) throw Object.assign(new Error(`${name} failed`), { body: result.error });
      const envelope = (lossless ? parseJsonLossless(result.data as string) : result.data) as Envelope;
      expect(envelope.code).toBe(0);
      return envelope.data as T;
    };
    const flow: FlowClient = {
      syncCustomer: (body) => data("syncCustomer", { body }),
      createOrder: (body) => data("createOrder", { body }),
      getOrder: (orderId, merchantId) => data("getOrder", { path: { orderId }, query: { merchantId } }),
      payOrder: (orderId, body) => data("payOrder", { path: { orderId }, body }),
      queryPayment: (tradeNo) => data("queryPayment", { query: { tradeNo } }),
    };
    return flow;
  }

  it("with parseAs \"text\" and parseJsonLossless, completes the payment flow against large order ids", async () => {
    await runPaymentFlow(await heyClient(true), sandbox!.url, "hey-user");
  });

  it("with bodySerializer: stringifyJson, a body holding a bigint id goes out exactly", async () => {
    await orderForBigMerchant(await heyClient(true), "hey-big-body");
  });

  it("with its default JSON.parse, the order id is rounded and getOrder finds no such order", async () => {
    const client = await heyClient(false);
    await expectRoundedOrderIdLost(client, "hey-plain", { body: { code: 300001 } });
  });
});
