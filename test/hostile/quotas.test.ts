// Item 6 of the hostile-input review (the per-app budget of stored orders and trades): one app
// filling its budget gets 100018 naming the limit, nothing past it is stored, other apps are
// served, updates of existing records still work, and a reset frees the budget.
import { describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { DEFAULT_STORE_QUOTAS } from "../../src/sandbox/index.js";
import { BASIC } from "../support/sandbox.js";
import { expectStillServed, hostileSuite, startHostileSandbox } from "./support.js";

const QUOTAS = { maxOrdersPerApp: 5, maxTradesPerApp: 4 };
const FULL = SignedErrors.APP_QUOTA_EXCEEDED;

const { sb, ledger } = hostileSuite({ sandbox: { quotas: QUOTAS } });

function cashier(app = undefined as undefined | typeof BASIC, outTradeNo = `Q-${Math.random().toString(36).slice(2, 12)}`) {
  return sb.signed({ path: "/payment/cashier/create", body: { merchantId: 10001, outTradeNo, totalAmount: 100, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" }, ...(app && { app }) });
}

describe("per-app budget of stored orders and trades", () => {
  it("documents sane defaults", () => {
    expect(DEFAULT_STORE_QUOTAS).toEqual({ maxOrdersPerApp: 2_000, maxTradesPerApp: 10_000 });
  });

  it("refuses the order past the budget with 100018, and stores nothing more", async () => {
    const orders: bigint[] = [];
    for (let i = 0; i < QUOTAS.maxOrdersPerApp - 1; i++) orders.push(await ledger.addOrder());
    orders.push(await sb.createOrder());
    const refused = await sb.signed({ path: "/orders", body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Tea", price: 100, quantity: 1 }] } });
    expect(refused.status).toBe(FULL.http);
    expect(refused.json.code).toBe(FULL.code);
    expect(refused.json.msg).toContain(`already has ${QUOTAS.maxOrdersPerApp} orders`);
    expect((await sb.sandbox.state.trades()).length).toBe(0);
    // Existing orders still change: paying one opens a trade (counted against trades).
    const paid = await sb.signed({ path: `/orders/${orders[0]}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } });
    expect(paid.json.code, paid.text).toBe(0);
    await expectStillServed(sb);
  });

  it("refuses the trade past the budget; repeating an existing outTradeNo still answers it", async () => {
    const first = await cashier(undefined, "Q-FIRST");
    expect(first.json.code).toBe(0);
    // One trade from payOrder above, one here: two more reach the budget of 4.
    for (let i = 0; i < QUOTAS.maxTradesPerApp - 2; i++) expect((await cashier()).json.code).toBe(0);
    const refused = await cashier();
    expect(refused.json.code).toBe(FULL.code);
    expect(refused.json.msg).toContain(`already has ${QUOTAS.maxTradesPerApp} payment trades`);
    expect((await cashier(undefined, "Q-FIRST")).json.data.tradeNo).toBe(first.json.data.tradeNo);
  });

  it("leaves other apps their own budget", async () => {
    expect((await cashier(BASIC)).json.code).toBe(0);
  });

  it("frees the budget on reset", async () => {
    const fresh = await startHostileSandbox({ quotas: { maxOrdersPerApp: 1, maxTradesPerApp: 1 } });
    try {
      await fresh.createOrder();
      await expect(fresh.createOrder()).rejects.toThrow(/100018/);
      expect((await fresh.control("POST", "/reset")).json.code).toBe(0);
      await fresh.createOrder();
    } finally {
      await fresh.close();
    }
  });
});
