// The payment flow every generated client must complete against a real sandbox with its default
// large order ids (above 2^53): syncCustomer → createOrder → getOrder (the same id) → payOrder →
// pay through the control API → queryPayment SUCCESS. Each generator's test adapts its generated
// functions to FlowClient; the assertions live here, once.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createSandbox, ORDER_ID_BASE, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { packageRoot } from "../../src/util/package-root.js";

export const root = packageRoot();
export const SIGNED_SPEC = join(root, "generated", "signed.openapi.json");
export const DEMO = { appKey: "demo-app-key", appSecret: "demo-app-secret" } as const;
export const MERCHANT_ID = 10001;
/** The package's own entry, as a generated client's glue code in a temp dir imports it. */
export const PACKAGE_ENTRY = join(root, "src", "index.js");

export type Id = number | bigint;

/** What each generated client answers: the envelope's `data` (the adapter checks code 0). */
export interface FlowClient {
  syncCustomer(body: { openUserId: string }): Promise<{ appUserId: Id }>;
  createOrder(body: CreateOrderBody): Promise<Id>;
  getOrder(orderId: Id, merchantId: Id): Promise<{ id: Id; merchantId: Id; status: number; totalAmount: number }>;
  payOrder(orderId: Id, body: { merchantId: Id; notifyUrl: string }): Promise<{ tradeNo: string; cashierUrl: string }>;
  queryPayment(tradeNo: string): Promise<{ tradeNo: string; tradeStatus: string; totalAmount: number }>;
}

export interface CreateOrderBody {
  merchantId: Id;
  userId: Id;
  orderType: number;
  items: { itemType: number; itemId: Id; itemName: string; price: number; quantity: number }[];
}

/** Unwraps a parsed envelope: its data on code 0, otherwise an error naming the code and msg. */
export function dataOf<T>(envelope: unknown, what: string): T {
  const value = envelope as { code?: unknown; msg?: unknown; data?: unknown } | undefined;
  if (value?.code !== 0) throw new Error(`${what} answered ${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))}`);
  return value.data as T;
}

export interface FlowSandbox {
  url: string;
  sandbox: Sandbox;
  listening: ListeningSandbox;
  close(): Promise<void>;
}

/** A real sandbox on 127.0.0.1 with its default fixtures (large order ids); callbacks are answered in-process. */
export async function startFlowSandbox(): Promise<FlowSandbox> {
  const sandbox = createSandbox({ fetch: async () => new Response("success") });
  const listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  await sandbox.ready();
  return { url: listening.url, sandbox, listening, close: () => sandbox.close() };
}

/** Pays a trade as the user would, through the sandbox's control API (no signature there). */
export async function payThroughControl(sandboxUrl: string, tradeNo: string): Promise<void> {
  const answer = await fetch(`${sandboxUrl}/sandbox/trades/${encodeURIComponent(tradeNo)}/pay`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
  });
  const body = (await answer.json()) as { code: number };
  expect(body.code, JSON.stringify(body)).toBe(0);
}

/** Runs the whole flow and checks every step; answers the order id for further checks. */
export async function runPaymentFlow(client: FlowClient, sandboxUrl: string, openUserId: string): Promise<bigint> {
  const { appUserId } = await client.syncCustomer({ openUserId });
  expect(BigInt(appUserId)).toBeGreaterThan(0n);

  const orderId = await client.createOrder({
    merchantId: MERCHANT_ID,
    userId: appUserId,
    orderType: 1,
    items: [{ itemType: 1, itemId: 30001, itemName: "Latte", price: 2800, quantity: 2 }],
  });
  // The sandbox's order ids start at 2^53: a rounded id would be a number here.
  expect(typeof orderId).toBe("bigint");
  expect(orderId as bigint).toBeGreaterThan(ORDER_ID_BASE);

  const order = await client.getOrder(orderId, MERCHANT_ID);
  expect(order.id).toBe(orderId);
  expect(order.status).toBe(0);
  expect(order.totalAmount).toBe(5600);

  const trade = await client.payOrder(orderId, { merchantId: MERCHANT_ID, notifyUrl: "https://app.example.com/mop/notify" });
  expect(trade.tradeNo).toMatch(/^[0-9]+$/);

  await payThroughControl(sandboxUrl, trade.tradeNo);

  const payment = await client.queryPayment(trade.tradeNo);
  expect(payment).toMatchObject({ tradeNo: trade.tradeNo, tradeStatus: "SUCCESS", totalAmount: 5600 });

  const paid = await client.getOrder(orderId, MERCHANT_ID);
  expect(paid.status).toBe(1);
  return orderId as bigint;
}

/**
 * The generator's default set-up: the order id above 2^53 comes back as a rounded number and
 * getOrder, asked for that id, finds no such order (the refusal's shape is the generator's).
 */
export async function expectRoundedOrderIdLost(client: FlowClient, openUserId: string, refusal: Record<string, unknown>): Promise<void> {
  const { appUserId } = await client.syncCustomer({ openUserId });
  const orderId = await client.createOrder({
    merchantId: MERCHANT_ID,
    userId: appUserId,
    orderType: 1,
    items: [{ itemType: 1, itemId: 30001, itemName: "Latte", price: 2800, quantity: 1 }],
  });
  expect(typeof orderId).toBe("number");
  await expect(client.getOrder(orderId, MERCHANT_ID)).rejects.toMatchObject(refusal);
}

/**
 * A temp dir for generated code whose bare imports (zod, axios, ...) resolve through this
 * package's node_modules, as they would in a consumer's project.
 */
export function generationDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `mop-${prefix}-`));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A merchant of the default fixtures whose id is above 2^53, authorised for the demo app. */
export const BIG_MERCHANT_ID = 9007199254740993n;

/** Orders for the big merchant: the request bodies carry a bigint, which must go out as its digits. */
export async function orderForBigMerchant(client: FlowClient, openUserId: string): Promise<void> {
  const { appUserId } = await client.syncCustomer({ openUserId });
  const orderId = await client.createOrder({
    merchantId: BIG_MERCHANT_ID,
    userId: appUserId,
    orderType: 1,
    items: [{ itemType: 1, itemId: 30001, itemName: "Latte", price: 2800, quantity: 1 }],
  });
  const order = await client.getOrder(orderId, BIG_MERCHANT_ID);
  expect(order.merchantId).toBe(BIG_MERCHANT_ID);
  expect(order.id).toBe(orderId);
}

const rawJson = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;

/**
 * For generators whose code calls JSON.stringify on a body: a bigint there throws (loud, never
 * rounded), and on Node 22+ BigInt.prototype.toJSON returning JSON.rawJSON makes it exact.
 */
export function bigintBodyChecks(client: () => FlowClient): void {
  it("a body holding a bigint id fails loudly with JSON.stringify's TypeError, never rounded", async () => {
    await expect(orderForBigMerchant(client(), "big-body-plain")).rejects.toThrow(/BigInt/);
  });

  it.runIf(typeof rawJson === "function")("on Node 22+, BigInt.prototype.toJSON → JSON.rawJSON sends a bigint body id exactly", async () => {
    const proto = BigInt.prototype as { toJSON?: () => unknown };
    proto.toJSON = function (this: bigint) {
      return rawJson!(this.toString());
    };
    try {
      await orderForBigMerchant(client(), "big-body-raw");
    } finally {
      delete proto.toJSON;
    }
  });
}
