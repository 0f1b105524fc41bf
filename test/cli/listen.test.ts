// `mop listen` end to end, run as a developer runs it (a child process): a sandbox on one port,
// `mop listen` forwarding an app's callbacks to a receiver on another, the receiver's answers
// flowing back as the attempts' outcomes (a refusal retried on the sandbox's schedule, a
// receiver that is down recorded as such), a wrong secret refused, a second session replacing
// the first, Ctrl+C stopping it. With two sandboxes on one PostgreSQL database, a callback of a
// payment made through one instance reaches the listener connected to the other.
import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { verifySignedRequest } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { StartedProcesses, type StartedProcess } from "../support/process.js";
import { databaseName, postgresServerMissing, startPostgresServer, type PostgresServer } from "../support/postgres.js";
import { DEMO, eventually, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

function fakeIo(env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env } };
}

describe("mop listen: usage", () => {
  it.each([
    [[], /--forward-to is required/],
    [["--forward-to", "ftp://localhost/notify"], /--forward-to must be an http:\/\/ or https:\/\/ URL/],
    [["--forward-to", "http://localhost:3000/notify"], /--app-key \(or MOP_APP_KEY\) is required/],
    [["--forward-to", "http://localhost:3000/notify", "--app-key", "k"], /--app-secret \(or MOP_APP_SECRET\) is required/],
    [["--forward-to", "http://localhost:3000/notify", "--base-url", "sandbox"], /--base-url must be an http/],
    [["--forwardto", "x"], /Unknown option '--forwardto'/],
  ])("refuses %j as a usage error", async (args, message) => {
    const { out, io } = fakeIo();
    expect(await main(["listen", ...args], io)).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it("--help says what it does and every option", async () => {
    const { out, io } = fakeIo();
    expect(await main(["listen", "--help"], io)).toBe(0);
    for (const text of ["--forward-to", "--base-url", "--app-key", "--app-secret", "MOP_APP_SECRET", "replaces the old"]) expect(out.stdout).toContain(text);
  });
});

const started = new StartedProcesses();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await started.stopAll();
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** `mop listen` in a child process, the secret in its environment; resolves once it says it is ready (or has exited). */
function listen(base: string, forwardTo: string, secret: string = DEMO.appSecret, ready = /Ready: forwarding/): Promise<StartedProcess> {
  const args = ["listen", "--base-url", base, "--forward-to", forwardTo, "--app-key", DEMO.appKey];
  const script = `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(args)})).then((code) => { process.exitCode = code; })`;
  return started.start(process.execPath, ["--import", "tsx", "-e", script], { cwd: packageRoot(), env: { ...process.env, NODE_OPTIONS: "", MOP_APP_SECRET: secret }, ready, timeoutMs: 30_000 });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));

async function receiver(): Promise<Receiver> {
  const r = await startReceiver("/notify");
  cleanups.push(() => r.close());
  return r;
}

async function sandbox(options: Parameters<typeof startSandbox>[0] = {}): Promise<TestSandbox> {
  // The notifyUrl the trades name is not contacted while a listener holds the app.
  const sb = await startSandbox({ callbackSchedule: [300, 300], clock: { now: () => Date.now() }, ...options });
  cleanups.push(() => sb.close());
  return sb;
}

async function pay(sb: TestSandbox, paying: TestSandbox = sb): Promise<string> {
  const { tradeNo } = await sb.createTrade({ notifyUrl: "https://127.0.0.1:9/cb" });
  const paid = await paying.control("POST", `/trades/${tradeNo}/pay`);
  expect(paid.json.code, paid.text).toBe(0);
  return paid.json.data.eventId as string;
}

async function deliveryOf(sb: TestSandbox, eventId: string) {
  return (await sb.control("GET", `/callbacks?eventId=${eventId}`)).json.data.list[0];
}

describe("mop listen", () => {
  it("forwards a callback, signed, to the local receiver, and its 200 acknowledges it; a refusal is retried on the schedule", async () => {
    const sb = await sandbox();
    const r = await receiver();
    const listener = await listen(sb.url, r.url);
    const eventId = await pay(sb);
    const [received] = await r.waitFor(1, 10_000);
    const verified = await verifySignedRequest({ headers: received!.headers, body: received!.body, secretsFor: () => [DEMO.appSecret] });
    expect(verified.ok).toBe(true);
    expect(JSON.parse(received!.body)).toMatchObject({ id: eventId, type: "payment.succeeded" });
    const delivered = await eventually(async () => {
      const found = await deliveryOf(sb, eventId);
      return found.status === "delivered" && found;
    });
    expect(delivered.attempts).toMatchObject([{ attempt: 1, httpStatus: 200, acknowledged: true }]);
    await eventually(() => listener.output().includes(`payment.succeeded ${eventId} -> 200`));

    r.script.push({ status: 500 });
    const retried = await pay(sb);
    await r.waitFor(3, 10_000);
    const log = await eventually(async () => {
      const found = await deliveryOf(sb, retried);
      return found.status === "delivered" && found;
    });
    expect(log.attempts.map((attempt: { httpStatus: number }) => attempt.httpStatus)).toEqual([500, 200]);
    expect(log.attempts[0].responseBody).toBe("fail");
    expect(listener.output()).toContain(`${retried} -> 500`);
    expect(listener.output()).not.toContain(DEMO.appSecret);
  }, 60_000);

  it("reports a receiver that is down as the attempt's failure, and the sandbox retries it", async () => {
    const sb = await sandbox({ callbackSchedule: [300] });
    const gone = await startReceiver("/notify");
    await gone.close();
    const down = gone.url;
    await listen(sb.url, down);
    const eventId = await pay(sb);
    const failed = await eventually(async () => {
      const found = await deliveryOf(sb, eventId);
      return found.status === "failed" && found;
    }, 10_000);
    expect(failed.attempts).toHaveLength(2);
    expect(failed.attempts[0].error).toBe(`mop listen could not forward it: ECONNREFUSED (forwarding to ${down})`);
  }, 60_000);

  it("is refused with a wrong secret (exit 1, the sandbox's message), and replaced by a second session; Ctrl+C stops it", async () => {
    const sb = await sandbox();
    const r = await receiver();
    const wrong = await listen(sb.url, r.url, "not-the-secret", /mop listen: /);
    expect(await exitOf(wrong.child)).toBe(1);
    expect(wrong.output()).toMatch(/X-Sign does not match|signature/i);
    expect(wrong.output()).not.toContain("not-the-secret");

    const first = await listen(sb.url, r.url);
    const second = await listen(sb.url, r.url);
    expect(await exitOf(first.child)).toBe(1);
    expect(first.output()).toMatch(/replaced: another mop listen session for this app started/);
    await pay(sb);
    await r.waitFor(1, 10_000);
    second.child.kill("SIGINT");
    expect(await exitOf(second.child)).toBe(0);
    expect(second.output()).toContain("Stopped.");
    // Without a listener the notifyUrl is contacted again (here refused: nothing listens on port 9).
    const after = await pay(sb);
    const attempt = await eventually(async () => (await deliveryOf(sb, after)).attempts[0]);
    expect(attempt.error).not.toMatch(/mop listen/);
    expect(r.received).toHaveLength(1);
  }, 60_000);
});

let server: PostgresServer | undefined;
beforeAll(async () => {
  if (!postgresServerMissing) server = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await started.stopAll();
  await server?.close();
}, 60_000);

describe.skipIf(postgresServerMissing)("mop listen on a team sandbox", () => {
  it("gets the callback of a payment made through another instance than the one it listens to", async () => {
    const url = await server!.createDatabase(databaseName("listen"));
    const storeOptions = { pollIntervalMs: 100, leaseMs: 1000, poolSize: 4 };
    const [first, second] = [await sandbox({ store: url, storeOptions }), await sandbox({ store: url, storeOptions })];
    const r = await receiver();
    await listen(first.url, r.url);
    const eventId = await pay(second, second);
    const [received] = await r.waitFor(1, 10_000);
    expect(JSON.parse(received!.body).id).toBe(eventId);
    const delivered = await eventually(async () => {
      const found = await deliveryOf(second, eventId);
      return found.status === "delivered" && found;
    });
    expect(delivered.attempts).toMatchObject([{ attempt: 1, httpStatus: 200 }]);
    expect(r.received).toHaveLength(1);
  }, 60_000);
});
