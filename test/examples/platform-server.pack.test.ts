// examples/platform-server: all eighteen signed operations on the kit, with the kit's callback
// sender and test hooks, ids counting up and app-user ids above 2^53. Started as a program (its
// TypeScript run by tsx against the kit's sources, as a project runs it against the installed
// package), it passes mop check three runs in a row with nothing skipped but the key-based
// interface; without the test hooks exactly the checks that need them are skipped; its
// member-card callbacks arrive signed. test/package/platform-server-install.pack.test.ts compiles it
// against the shipped types.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCallback } from "../../src/callbacks/index.js";
import { createSignedClient } from "../../src/client/index.js";
import { ALL_CHECKS, runConformance, type ConformanceOptions, type ConformanceReport } from "../../src/conformance/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { startReceiver, type Receiver } from "../support/sandbox.js";
import { StartedProcesses, type StartedProcess } from "../support/process.js";

const root = packageRoot();
const processes = new StartedProcesses();
const KEYED = ALL_CHECKS.filter((check) => check.needs?.includes("keyed")).map((check) => check.name).sort();
const CONTROL = ALL_CHECKS.filter((check) => check.needs?.includes("control")).map((check) => check.name).sort();
let server: StartedProcess;
let base = "";
let appCallbacks: Receiver;

beforeAll(async () => {
  appCallbacks = await startReceiver();
  server = await processes.start(process.execPath, ["--import", "tsx", join(root, "examples/platform-server/server.ts")], {
    cwd: root,
    env: {
      ...process.env,
      // The package name resolves to the kit's sources (tsx reads tsconfig paths).
      TSX_TSCONFIG_PATH: join(root, "test/examples/platform-server.tsconfig.json"),
      PORT: "0",
      MOP_TEST_HOOKS: "1",
      MOP_ALLOW_INSECURE_NOTIFY: "1",
      MOP_CALLBACK_SCHEDULE_MS: "100,200,400,800",
      MOP_CALLBACK_URL: appCallbacks.url,
    },
    ready: /platform server listening on (http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/,
    timeoutMs: 30_000,
  });
  base = server.match[1]!;
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  await appCallbacks?.close();
});

const options = (patch: Partial<ConformanceOptions> = {}): ConformanceOptions => ({
  baseUrl: base,
  appKey: "demo-app-key",
  appSecret: "demo-app-secret",
  merchantIds: ["10001"],
  foreignMerchantId: "10003",
  controlUrl: `${base}/sandbox`,
  callbackWaitMs: 5000,
  concurrency: 6,
  ...patch,
});

const skippedNames = (report: ConformanceReport) => report.results.filter((r) => r.status === "skipped").map((r) => r.name).sort();
const notPassed = (report: ConformanceReport) =>
  report.results
    .filter((r) => r.status === "failed")
    .map((r) => `${r.name}: ${r.reason}\n${JSON.stringify(r.failure?.exchange?.request)}\n${r.failure?.exchange?.response?.bodyText}`)
    .join("\n");

describe("examples/platform-server", () => {
  it("passes mop check three runs in a row, nothing skipped but the key-based interface", { timeout: 120_000 }, async () => {
    for (let run = 1; run <= 3; run++) {
      const report = await runConformance(options());
      expect(notPassed(report), `run ${run}`).toBe("");
      expect(skippedNames(report), `run ${run}`).toEqual(KEYED);
      for (const result of report.results.filter((r) => r.status === "skipped")) expect(result.reason).toBe("no --api-key for the key-based interface");
      expect(report.counts.passed).toBe(ALL_CHECKS.length - KEYED.length);
      expect(report.target.controlApi).toBe(true);
    }
  });

  it("without its test hooks (--no-control): exactly the checks that need them are skipped", { timeout: 60_000 }, async () => {
    const report = await runConformance(options({ controlUrl: false, exclude: ["signature", "int64"] }));
    expect(notPassed(report)).toBe("");
    expect(skippedNames(report)).toEqual([...CONTROL, ...KEYED].sort());
    for (const name of CONTROL) expect(report.results.find((r) => r.name === name)!.reason).toMatch(/no sandbox control API/);
  });

  it("counts its ids up, above 2^53 for orders and app users", async () => {
    const client = createSignedClient({ baseUrl: `${base}/open-api/v1`, appKey: "demo-app-key", appSecret: "demo-app-secret" });
    const first = await client.call("syncCustomer", { body: { openUserId: "ids-1" } });
    const second = await client.call("syncCustomer", { body: { openUserId: "ids-2" } });
    expect(typeof first.appUserId).toBe("bigint");
    expect(BigInt(first.appUserId) > 2n ** 53n).toBe(true);
    expect(BigInt(second.appUserId) - BigInt(first.appUserId)).toBe(1n);
    const order = { merchantId: 10001, userId: first.appUserId, orderType: 1 as const, items: [{ itemType: 1 as const, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] };
    const a = BigInt(await client.call("createOrder", { body: order }));
    const b = BigInt(await client.call("createOrder", { body: order }));
    expect(a > 2n ** 53n).toBe(true);
    expect(b - a).toBe(1n);
  });

  it("sends the member-card callbacks through the kit's sender when a credit application is reviewed", async () => {
    const client = createSignedClient({ baseUrl: `${base}/open-api/v1`, appKey: "demo-app-key", appSecret: "demo-app-secret" });
    const { appUserId } = await client.call("syncCustomer", { body: { openUserId: "card-buyer" } });
    const purchase = await client.call("purchaseMemberCard", { body: { merchantId: 10001, templateId: 30003, appUserId } });
    expect(purchase.resultType).toBe(2);
    const before = appCallbacks.received.length;
    const approved = await fetch(`${base}/sandbox/member-card-applications/${purchase.id}/approve`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(approved.status).toBe(200);
    const { data } = (await approved.json()) as { data: { eventId: string; application: { status: string } } };
    expect(data.application.status).toBe("APPROVED");
    const [callback] = (await appCallbacks.waitFor(before + 1)).slice(before);
    const verified = await verifyCallback({ headers: callback!.headers, rawBody: callback!.body, secrets: "demo-app-secret" });
    expect(verified).toMatchObject({ ok: true, event: { id: data.eventId, type: "member_card.application.approved", data: { applicationId: purchase.id, appUserId } } });
    const again = await fetch(`${base}/sandbox/member-card-applications/${purchase.id}/approve`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(((await again.json()) as { code: number }).code).toBe(500005);
  });
});
