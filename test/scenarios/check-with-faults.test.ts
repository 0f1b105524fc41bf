// mop check against a sandbox with active faults: the report shows each fault's effect (a 500 with
// 100099, no answer in time, a dropped connection) on the checks that met it, the run completes
// and exits 1; nothing crashes. Without faults the same sandbox passes (against-sandbox.test.ts
// in test/conformance keeps that true).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { runConformance, type ConformanceReport } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";

let sandbox: Sandbox;
let listening: ListeningSandbox;

beforeAll(async () => {
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [50, 50, 100] });
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await fetch(`${listening.url}/sandbox/reset`, { method: "POST", headers: { "Content-Type": "application/json" } });
});

async function fault(body: Record<string, unknown>): Promise<void> {
  const answer = await fetch(`${listening.url}/sandbox/faults`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  expect(((await answer.json()) as { code: number }).code).toBe(0);
}

async function check(include: string[], timeoutMs = 3000): Promise<ConformanceReport> {
  return runConformance({
    baseUrl: listening.url,
    appKey: "demo-app-key",
    appSecret: "demo-app-secret",
    merchantIds: ["10001"],
    foreignMerchantId: "10004",
    apiKey: "demo-api-key",
    controlUrl: `${listening.url}/sandbox`,
    include,
    timeoutMs,
  });
}

const failed = (report: ConformanceReport) => report.results.filter((result) => result.status === "failed");

describe("mop check with faults set", () => {
  it("an internal error on every listStores: the checks that call it fail citing the 500 and 100099; the others pass", async () => {
    await fault({ operationId: "listStores", kind: "internal-error", times: 10000 });
    const report = await check(["responses", "validation"]);
    const failures = failed(report);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.map((result) => result.name)).toContain("responses.listStores");
    expect(failures.every((result) => /100099|500/.test(`${result.reason} ${JSON.stringify(result)}`))).toBe(true);
    expect(report.results.some((result) => result.status === "passed")).toBe(true);
  }, 60_000);

  it("no answer in time and dropped connections are reported as such", async () => {
    await fault({ operationId: "getMerchant", kind: "timeout", times: 10000, delayMs: 30000 });
    await fault({ operationId: "listMerchants", kind: "reset-connection", times: 10000 });
    const report = await check(["responses.getMerchant", "responses.listMerchants"], 400);
    const reasons = Object.fromEntries(failed(report).map((result) => [result.name, JSON.stringify(result)]));
    expect(reasons["responses.getMerchant"]).toMatch(/no answer within 400 ms/);
    expect(reasons["responses.listMerchants"]).toMatch(/no answer: fetch failed \(UND_ERR_SOCKET\)/);
  }, 60_000);

  it("mop check exits 1 with the failures in its report, and 0 again once the faults are gone", async () => {
    await fault({ operationId: "getStore", kind: "rate-limited", times: 10000, retryAfterSeconds: 1 });
    let stdout = "";
    const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stdout += text), isTTY: false, env: { MOP_APP_SECRET: "demo-app-secret" } };
    const args = ["check", "--base-url", listening.url, "--app-key", "demo-app-key", "--merchant-id", "10001", "--control-url", `${listening.url}/sandbox`, "--include", "responses.getStore"];
    expect(await main(args, io)).toBe(1);
    expect(stdout).toMatch(/FAIL responses\.getStore/);
    expect(stdout).toMatch(/100006/);
    await fetch(`${listening.url}/sandbox/reset`, { method: "POST", headers: { "Content-Type": "application/json" } });
    stdout = "";
    expect(await main(args, io), stdout).toBe(0);
  }, 60_000);
});
