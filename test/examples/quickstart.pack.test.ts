// The quick start stays true: the example receiver and the first-order script, run as a
// newcomer runs them (by package name, from the built package), give a paid order whose
// callback arrives verified.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { StartedProcesses, type StartedProcess } from "../support/process.js";

const root = packageRoot();
let sandbox: Sandbox;
let listening: ListeningSandbox;
const processes = new StartedProcesses();

/** Starts a node script and resolves with it once its output matches. */
function start(script: string, env: Record<string, string>, ready: RegExp): Promise<StartedProcess> {
  return processes.start(process.execPath, [join(root, script)], { cwd: root, env: { ...process.env, ...env }, ready, timeoutMs: 15_000 });
}

beforeAll(async () => {
  if (!existsSync(join(root, "dist/src/index.js"))) execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root });
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [100, 200, 500] });
  listening = await sandbox.listen({ port: 0 });
}, 120_000);

afterAll(async () => {
  await processes.stopAll();
  await sandbox.close();
});

it("goes from a first order to a verified payment callback, as docs/quickstart.md says", async () => {
  const receiver = await start("examples/receive-callbacks.mjs", { PORT: "0" }, /receiving callbacks on (http:\/\/127\.0\.0\.1:\d+\/notify)/);
  // PORT=0 makes the example listen on a free port and print it.
  const notifyUrl = receiver.match[1]!;
  expect(notifyUrl).not.toContain(":0/");
  const order = await start("examples/first-order.mjs", { MOP_BASE_URL: `${listening.url}/open-api/v1`, MOP_NOTIFY_URL: notifyUrl }, /order status 0, total 3600 fen/);
  const text = order.output();
  expect(text).toMatch(/order \d{16,} created \(an int64 id above 2\^53: a bigint\)/);
  const tradeNo = text.match(/trade (\d+) \(ORDER-\d+\) waiting for payment/)![1]!;
  expect(text).toContain(`${listening.url}/cashier/${tradeNo}`);

  const paid = await fetch(`${listening.url}/sandbox/trades/${tradeNo}/pay`, { method: "POST", headers: { "Content-Type": "application/json" } });
  expect(((await paid.json()) as { code: number }).code).toBe(0);
  await expect.poll(receiver.output, { timeout: 10_000 }).toMatch(new RegExp(`verified payment\\.succeeded evt_\\w+: .*"tradeNo":"${tradeNo}".*"attach":"quickstart"`));
}, 60_000);
