// Green where it must be: mop check against the sandbox passes every check, with callbacks,
// on both base paths, run after run. Red where it must be: in front of the sandbox, servers
// wrong in exactly one way make exactly the checks that must fail fail, with a useful message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, type ConformanceOptions, type ConformanceReport } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startFaultyServer } from "./faulty-server.js";
import { faultsFor } from "./faults.js";

const credentials = { appKey: "demo-app-key", appSecret: "demo-app-secret" };
let sandbox: Sandbox;
let listening: ListeningSandbox;

beforeAll(async () => {
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [50, 50, 100, 100, 200] });
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await sandbox.close();
});

function options(baseUrl: string, patch: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return {
    baseUrl,
    ...credentials,
    merchantIds: ["10001"],
    foreignMerchantId: "10004",
    apiKey: "demo-api-key",
    controlUrl: `${listening.url}/sandbox`,
    callbackWaitMs: 3000,
    concurrency: 6,
    ...patch,
  };
}

function failures(report: ConformanceReport): string {
  return report.results
    .filter((r) => r.status !== "passed")
    .map((r) => `${r.status} ${r.name}: ${r.reason}`)
    .join("\n");
}

describe("mop check against the sandbox", () => {
  it.each(["/open-api/v1", "/open-api"] as const)("passes every check, none skipped, on %s", async (basePath) => {
    const report = await runConformance(options(listening.url, { basePath }));
    expect(failures(report)).toBe("");
    expect(report.counts.passed).toBe(report.results.length);
    expect(report.results.length).toBeGreaterThan(50);
    expect(report.target.controlApi).toBe(true);
  });

  it("reports no false alarm over repeated runs", async () => {
    for (let run = 0; run < 2; run++) {
      const report = await runConformance(options(listening.url, { exclude: ["callbacks"] }));
      expect(failures(report)).toBe("");
    }
  });

  it("changes nothing it did not create: fixtures, other customers, other apps' orders and trades", async () => {
    const { createSignedClient } = await import("../../src/client/index.js");
    // Someone else's data, made before the run through the other app.
    const other = createSignedClient({ baseUrl: `${listening.url}/open-api/v1`, appKey: "basic-app-key", appSecret: "basic-app-secret" });
    const { appUserId } = await other.call("syncCustomer", { body: { openUserId: "bystander" } });
    const orderId = await other.call("createOrder", { body: { merchantId: 10001, userId: appUserId, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] } });
    await other.call("createCashierSession", { body: { merchantId: 10001, outTradeNo: "bystander-1", totalAmount: 100, subject: "Tea", notifyUrl: "https://example.invalid/cb" } });
    const state = sandbox.state;
    const snapshot = async () =>
      JSON.stringify(
        {
          merchants: state.merchants(),
          stores: state.stores(),
          templates: state.cardTemplates(),
          demoCustomer: await state.customerByOpenUserId("demo-app-key", "user-4711"),
          bystander: await state.customerByOpenUserId("basic-app-key", "bystander"),
          order: await state.order(BigInt(orderId)),
          trades: (await state.trades()).filter((t) => !t.outTradeNo.startsWith("chk-") && !t.outTradeNo.startsWith("ORDER-")),
        },
        (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
      );
    const before = await snapshot();
    const report = await runConformance(options(listening.url, { exclude: ["callbacks"] }));
    expect(failures(report)).toBe("");
    expect(await snapshot()).toBe(before);
  });

  it("skips, never passes, what it cannot run: no control API, no API key, no foreign merchant", async () => {
    const report = await runConformance(options(listening.url, { controlUrl: false, apiKey: undefined, foreignMerchantId: undefined, include: ["callbacks", "keyed", "permissions.unauthorised-merchant", "state.paid-order-lifecycle", "idempotency.out-refund-no"] }));
    expect(report.counts.passed).toBe(0);
    expect(report.counts.failed).toBe(0);
    for (const result of report.results) expect(result.reason, result.name).toMatch(/control API|--api-key|--foreign-merchant-id/);
  });

  it("exits with a connection error when nothing listens", async () => {
    await expect(runConformance(options("http://127.0.0.1:9", { timeoutMs: 2000 }))).rejects.toThrow(/cannot reach/);
  });
});

describe("mop check against faulty servers", () => {
  const faults = faultsFor(credentials);

  it("injects at least 15 faults", () => {
    expect(faults.length).toBeGreaterThanOrEqual(15);
  });

  // Concurrent runs share two cores with the rest of the suite: a generous timeout, not a speed goal.
  it.concurrent.each(faults.map((fault) => [fault.name, fault] as const))("catches a server that %s", { timeout: 120_000 }, async (_name, fault) => {
    const faulty = await startFaultyServer(listening.url, credentials, fault);
    try {
      const report = await runConformance(options(faulty.url));
      const failed = report.results.filter((r) => r.status === "failed");
      const mayFail = new Set(fault.mayBreak ?? []);
      expect(failed.map((r) => r.name).filter((name) => !mayFail.has(name)).sort(), failures(report)).toEqual([...fault.breaks].sort());
      const skipped = report.results.filter((r) => r.status === "skipped");
      expect(skipped.map((r) => r.name)).toEqual(report.results.map((r) => r.name).filter((name) => fault.skips?.names(name) ?? false));
      for (const result of skipped) expect(result.reason, result.name).toMatch(fault.skips!.reason);
      for (const result of failed) {
        // A probe built from an id cites the answer that made the id, beside the probe itself.
        if (result.name === "int64.rounded-id-unknown" && fault.name.startsWith("finds a record")) {
          expect(result.failure?.related?.[0]?.label).toBe("id made by");
          expect(result.failure?.related?.[0]?.exchange.request.url).not.toBe(result.failure?.exchange?.request.url);
        }
        expect(result.failure?.message.length, result.name).toBeGreaterThan(15);
        expect(result.failure?.expected.length).toBeGreaterThan(3);
        expect(result.failure?.rule.length).toBeGreaterThan(5);
      }
    } finally {
      await faulty.close();
    }
  });
});
