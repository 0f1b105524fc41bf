// `mop sandbox --store postgres://…` and `mop sandbox migrate` as an operator runs them: usage
// errors (exit 2) and an unreachable database (exit 1) named without the password, migrations
// applied separately and required with --no-migrate, and an instance killed with SIGKILL and
// started again: its orders, trades and pending callback attempts are all there, and the
// callback schedule goes on where it stopped.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseJsonLossless, stringifyJson } from "../../src/json/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { StartedProcesses, type StartedProcess } from "../support/process.js";
import { databaseName, postgresServerMissing, startPostgresServer, type PostgresServer } from "../support/postgres.js";
import { DEMO, DEMO_USER, eventually, startReceiver } from "../support/sandbox.js";

function fakeIo() {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env: {} } };
}

describe("mop sandbox --store: usage", () => {
  it.each([
    [["--store", "mysql://root:hunter2@127.0.0.1/db"], /--store must be "memory" or a postgres:\/\/ URL, got "mysql:\/\/root:\*\*\*@127\.0\.0\.1\/db"/],
    [["--store-schema", "mine"], /--store-schema applies to a PostgreSQL store only/],
    [["--store", "postgres://127.0.0.1/db", "--store-schema", "Bad-Name"], /--store-schema must be a lower-case SQL name/],
    [["--store", "postgres://127.0.0.1/db", "--store-pool-size", "0"], /--store-pool-size must be a whole number/],
    [["--store", "postgres://127.0.0.1/db", "--callback-lease", "forever"], /--callback-lease must be a duration/],
    [["--store", "postgres://127.0.0.1/db", "--nonce-capacity", "100"], /--nonce-capacity sizes the memory nonce store; with --store postgres/],
    [["migrate"], /migrate needs --store postgres/],
    [["migrate", "--store", "memory"], /migrate applies to a PostgreSQL store/],
  ])("refuses %j as a usage error, printing no password", async (args, message) => {
    const { out, io } = fakeIo();
    expect(await main(["sandbox", ...args], io)).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr).not.toContain("hunter2");
  });

  it("names an unreachable database and exits 1, printing no password", async () => {
    const { out, io } = fakeIo();
    expect(await main(["sandbox", "--store", "postgres://postgres:hunter2@127.0.0.1:1/team", "--port", "0", "--quiet"], io)).toBe(1);
    expect(out.stderr).toMatch(/mop sandbox: PostgreSQL at 127\.0\.0\.1:1\/team does not answer \(ECONNREFUSED\)/);
    expect(`${out.stdout}${out.stderr}`).not.toContain("hunter2");
    out.stderr = "";
    expect(await main(["sandbox", "migrate", "--store", "postgres://postgres:hunter2@127.0.0.1:1/team"], io)).toBe(1);
    expect(out.stderr).toMatch(/mop sandbox migrate: PostgreSQL at 127\.0\.0\.1:1\/team does not answer/);
    expect(out.stderr).not.toContain("hunter2");
  });

  it("--help describes the store and migrate", async () => {
    const { out, io } = fakeIo();
    expect(await main(["sandbox", "--help"], io)).toBe(0);
    for (const option of ["--store URL", "--store-schema", "--no-migrate", "--callback-lease", "mop sandbox migrate"]) expect(out.stdout).toContain(option);
    out.stdout = "";
    expect(await main(["sandbox", "migrate", "--help"], io)).toBe(0);
    expect(out.stdout).toContain("--check");
  });
});

const started = new StartedProcesses();
let server: PostgresServer | undefined;

beforeAll(async () => {
  if (!postgresServerMissing) server = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await started.stopAll();
  await server?.close();
}, 60_000);

/** `mop sandbox` in a child process (through tsx, from the sources), once its banner is out. */
function startCli(args: string[]): Promise<StartedProcess> {
  const script = `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["sandbox", ...args])})).then((code) => { process.exitCode = code; })`;
  return started.start(process.execPath, ["--import", "tsx", "-e", script], { cwd: packageRoot(), env: { ...process.env, NODE_OPTIONS: "" }, ready: /Press Ctrl\+C to stop\./, timeoutMs: 30_000 });
}

const baseOf = (process: StartedProcess) => /Signed interface\s+(http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/.exec(process.output())![1]!;
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

async function signed(base: string, path: string, body?: unknown) {
  const text = body === undefined ? "" : (stringifyJson(body) ?? "");
  const response = await fetch(`${base}/open-api/v1${path}`, { method: text ? "POST" : "GET", headers: { ...signRequestHeaders({ ...DEMO, body: text }), ...(text && { "Content-Type": "application/json" }) }, body: text || undefined });
  return parseJsonLossless(await response.text()) as { code: number; data: any; msg: string };
}

async function control(base: string, method: string, path: string) {
  const response = await fetch(`${base}/sandbox${path}`, { method, headers: { "Content-Type": "application/json" } });
  return parseJsonLossless(await response.text()) as { code: number; data: any };
}

describe.skipIf(postgresServerMissing)("mop sandbox --store postgres://", () => {
  it("migrate applies the migrations once; --check and --no-migrate refuse a database without them", async () => {
    const url = await server!.createDatabase(databaseName("migrate"));
    const { out, io } = fakeIo();
    expect(await main(["sandbox", "migrate", "--store", url, "--check"], io)).toBe(1);
    expect(out.stderr).toMatch(/at version 0, and this sandbox needs version 1\. Apply the migrations first: mop sandbox migrate/);
    out.stderr = "";
    expect(await main(["sandbox", "--store", url, "--no-migrate", "--port", "0", "--quiet"], io)).toBe(1);
    expect(out.stderr).toMatch(/Apply the migrations first/);
    expect(await main(["sandbox", "migrate", "--store", url], io)).toBe(0);
    expect(out.stdout).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/mop_migrate_\w+, schema mop_sandbox: applied 1 \(records, callback deliveries, nonces, clock\)\./);
    out.stdout = "";
    expect(await main(["sandbox", "migrate", "--store", url, "--check"], io)).toBe(0);
    expect(await main(["sandbox", "migrate", "--store", url], io)).toBe(0);
    expect(out.stdout).toMatch(/at version 1, the latest; nothing to apply/g);
    expect(`${out.stdout}${out.stderr}`).not.toContain("mop-test-secret");
  });

  it("after kill -9 and a restart, the orders, trades and pending callback attempts are there and the schedule resumes", async () => {
    const url = await server!.createDatabase(databaseName("restart"));
    const receiver = await startReceiver();
    try {
      // The receiver refuses the first three attempts.
      receiver.script.push({ status: 500 }, { status: 500 }, { status: 500 });
      const args = ["--store", url, "--port", "0", "--quiet", "--allow-insecure-notify", "--allow-private-notify", "--callback-schedule", "2s,2s,2s,2s", "--callback-lease", "1s"];
      const first = await startCli(args);
      expect(first.output()).toMatch(/Records: PostgreSQL at 127\.0\.0\.1:\d+\/mop_restart_\w+, shared by every instance/);
      expect(first.output()).not.toContain("mop-test-secret");
      const base = baseOf(first);
      const order = await signed(base, "/orders", { merchantId: 10001, userId: DEMO_USER, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] });
      expect(order.code).toBe(0);
      const paid = await signed(base, `/orders/${order.data}/pay`, { merchantId: 10001, notifyUrl: receiver.url });
      const waiting = await signed(base, "/payment/cashier/create", { merchantId: 10001, outTradeNo: "RESTART-WAITING", totalAmount: 100, subject: "Tea", notifyUrl: receiver.url });
      const payment = await control(base, "POST", `/trades/${paid.data.tradeNo}/pay`);
      expect(payment.code).toBe(0);
      await receiver.waitFor(1);
      // Killed once the attempt is recorded (killed before, the attempt is made again: at least once).
      await eventually(async () => (await control(base, "GET", `/callbacks?eventId=${payment.data.eventId}`)).data.list[0].attempts.length === 1);

      first.child.kill("SIGKILL");
      await exited(first.child);
      const second = await startCli(args);
      const again = baseOf(second);
      expect((await signed(again, `/orders/${order.data}?merchantId=10001`)).data).toMatchObject({ id: order.data, status: 1 });
      expect((await signed(again, `/payment/query?tradeNo=${waiting.data.tradeNo}`)).data.tradeStatus).toBe("WAIT_BUYER_PAY");
      const [pending] = (await control(again, "GET", `/callbacks?eventId=${payment.data.eventId}`)).data.list;
      expect(pending.status).toBe("pending");
      expect(pending.attempts[0]).toMatchObject({ attempt: 1, httpStatus: 500, trigger: "scheduled" });
      // The schedule goes on: attempts 2, 3 and 4 (acknowledged), by the new instance.
      await receiver.waitFor(4, 20_000);
      const delivered = await eventually(async () => {
        const [log] = (await control(again, "GET", `/callbacks?eventId=${payment.data.eventId}`)).data.list;
        return log.status === "delivered" && log;
      }, 10_000);
      expect(delivered.attempts.map((attempt: { attempt: number; httpStatus: number }) => [attempt.attempt, attempt.httpStatus])).toEqual([[1, 500], [2, 500], [3, 500], [4, 200]]);
      expect(new Set(receiver.received.map((received) => JSON.parse(received.body).id))).toEqual(new Set([payment.data.eventId]));
      // Each request the receiver saw is one recorded attempt, in order: none lost, none doubled.
      expect(delivered.attempts.map((attempt: { headers: Record<string, string> }) => attempt.headers["X-Nonce"])).toEqual(receiver.received.map((received) => received.headers["x-nonce"]));
      await second.stop();
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
