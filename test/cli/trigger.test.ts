// `mop trigger` as a user runs it: a signed test event of every webhook the spec defines, sent to
// the package's own callback handler (createCallbackHandler on node:http) and to receivers that
// get it wrong; every variant; exit codes (0 when the receiver answered as a correct one must,
// 1 when not, 2 for usage errors and an unreachable receiver); and the secret in no output,
// in-process and as a real child process.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCallbackHandler, type CallbackEvent } from "../../src/callbacks/index.js";
import type { Command } from "../../src/cli/commands.js";
import { runCommand } from "../../src/cli/main.js";
import { triggerCommand } from "../../src/cli/trigger.js";
import { packageRoot } from "../../src/util/package-root.js";
import { closedPort } from "../faults/support.js";

const SECRET = "trigger-test-secret";
const APP_KEY = "demo-app-key";
const TRIGGER: Command = { name: "trigger", summary: "", run: triggerCommand };

function fakeIo(env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env } };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mop/notify` };
}

let handled: CallbackEvent[];
let refusals: string[];
let receiver: { server: Server; url: string };
let naive: { server: Server; url: string; bodies: string[] };
let failing: { server: Server; url: string };

beforeAll(async () => {
  // The package's own handler: verifies the raw bytes, refuses bad signatures and stale
  // timestamps, and hands each event id to onEvent once.
  const handler = createCallbackHandler({
    secrets: [SECRET],
    appKey: APP_KEY,
    onEvent: (event) => void handled.push(event),
    onError: (_error, context) => void refusals.push(context.failure?.name ?? "handling"),
  });
  receiver = await listen((req, res) => handler(req, res));
  // A receiver that acknowledges whatever arrives, without checking anything.
  const bodies: string[] = [];
  naive = Object.assign(
    await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        res.end("success");
      });
    }),
    { bodies },
  );
  failing = await listen((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(500, { "Content-Type": "text/plain" }).end("HANDLER_FAILED: database down"));
  });
});
afterAll(async () => {
  for (const { server } of [receiver, naive, failing]) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});
beforeEach(() => {
  handled = [];
  refusals = [];
  naive.bodies.length = 0;
});

async function trigger(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { out, io } = fakeIo(env);
  const code = await runCommand(TRIGGER, args, io);
  expect(out.stdout + out.stderr).not.toContain(SECRET);
  return { code, ...out };
}

const base = (url: string) => ["--notify-url", url, "--app-key", APP_KEY, "--app-secret", SECRET];

describe("a well-formed event", () => {
  it.each(["payment.succeeded", "member_card.application.approved", "member_card.application.rejected"])("%s: the handler acknowledges it and handles it once; exit 0", async (type) => {
    const run = await trigger([type, ...base(receiver.url)]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^mop trigger: ${type.replace(/\./g, "\\.")} evt_[A-Za-z0-9]{24} to ${receiver.url}\\n  the event: HTTP 200 "success" in \\d+ ms \\(as a correct receiver must\\)`));
    expect(run.stdout).toContain("The receiver answered as a correct receiver must.");
    expect(handled.map((event) => event.type)).toEqual([type]);
  });

  it("--data sets members of the event's data, checked against the webhook's schema", async () => {
    const run = await trigger(["payment.succeeded", ...base(receiver.url), "--data", '{"outTradeNo":"M-TRIGGER-1","totalAmount":100}']);
    expect(run.code).toBe(0);
    expect(handled[0]).toMatchObject({ data: { outTradeNo: "M-TRIGGER-1", totalAmount: 100 } });
    const invalid = await trigger(["payment.succeeded", ...base(receiver.url), "--data", '{"totalAmount":"a lot"}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/mop trigger: --data: The payment\.succeeded payload does not match the paymentSucceeded schema: .*totalAmount must be integer/);
  });

  it("a receiver that answers 500 did not acknowledge: exit 1, its answer printed", async () => {
    const run = await trigger(["payment.succeeded", ...base(failing.url)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the event: HTTP 500 "HANDLER_FAILED: database down"');
    expect(run.stdout).toContain("a correct receiver would have acknowledged it (2xx)");
  });

  it("--json prints the result and the exact body sent", async () => {
    const run = await trigger(["member_card.application.approved", ...base(receiver.url), "--json"]);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ type: "member_card.application.approved", url: receiver.url, variant: null, ok: true, deliveries: [{ label: "the event", httpStatus: 200, expected: "acknowledged", asExpected: true }] });
    expect(JSON.parse(result.body).id).toBe(result.eventId);
  });
});

describe("variants", () => {
  it("exact: the event, then the same body and id again; both acknowledged, handled once", async () => {
    const run = await trigger(["payment.succeeded", ...base(receiver.url), "--variant", "exact"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/the event: HTTP 200.*\n  exact \(the same body and event id, freshly signed \(a duplicate\)\): HTTP 200/);
    expect(handled).toHaveLength(1);
  });

  it("reordered-fields: verified over the bytes as sent, so it is acknowledged and handled", async () => {
    const run = await trigger(["payment.succeeded", ...base(receiver.url), "--variant", "reordered-fields", "--json"]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.deliveries).toHaveLength(1);
    expect(handled).toHaveLength(1);
    expect(handled[0]!.id).toBe(result.eventId);
  });

  it.each([
    ["tampered-body", "SIGNATURE_MISMATCH"],
    ["wrong-secret", "SIGNATURE_MISMATCH"],
    ["stale-timestamp", "TIMESTAMP_OUT_OF_WINDOW"],
  ])("%s: the handler refuses it (%s) and handles nothing; exit 0", async (variant, failure) => {
    const run = await trigger(["payment.succeeded", ...base(receiver.url), "--variant", variant]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`  ${variant} \\(.*\\): HTTP 401 .* \\(as a correct receiver must\\)`));
    expect(handled).toEqual([]);
    expect(refusals).toEqual([failure]);
  });

  it("a receiver that acknowledges a tampered body is caught: exit 1", async () => {
    const run = await trigger(["payment.succeeded", ...base(naive.url), "--variant", "tampered-body"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("a correct receiver would have refused it (not 2xx)");
    expect(run.stdout).toContain("The receiver did not answer as a correct receiver must");
    expect(naive.bodies).toHaveLength(1);
  });
});

describe("usage and reachability", () => {
  it("--help lists the events, the variants and the exit codes", async () => {
    const run = await trigger(["--help"]);
    expect(run.code).toBe(0);
    for (const text of ["payment.succeeded", "member_card.application.rejected", "--variant", "tampered-body", "stale-timestamp", "MOP_APP_SECRET", "Exit code 0"]) expect(run.stdout).toContain(text);
  });

  it.each([
    [[], /mop trigger: name the event to send: payment\.succeeded/],
    [["payment.refunded", ...base("http://127.0.0.1:1/")], /unknown event "payment\.refunded"; the spec's webhooks send payment\.succeeded/],
    [["payment.succeeded", "--app-key", APP_KEY, "--app-secret", SECRET], /--notify-url is required/],
    [["payment.succeeded", "--notify-url", "ftp://x/", "--app-key", APP_KEY, "--app-secret", SECRET], /--notify-url must be http:\/\/ or https:\/\//],
    [["payment.succeeded", "--notify-url", "http://127.0.0.1:1/", "--app-secret", SECRET], /--app-key is required/],
    [["payment.succeeded", "--notify-url", "http://127.0.0.1:1/", "--app-key", APP_KEY], /the app's secret is required: --app-secret SECRET, or the MOP_APP_SECRET/],
    [["payment.succeeded", ...base("http://127.0.0.1:1/"), "--variant", "late"], /--variant must be one of exact, tampered-body, wrong-secret, stale-timestamp, reordered-fields/],
    [["payment.succeeded", ...base("http://127.0.0.1:1/"), "--data", "{"], /--data is not JSON/],
    [["payment.succeeded", ...base("http://127.0.0.1:1/"), "--timeout", "soon"], /--timeout must be a number of milliseconds/],
  ])("%j is a usage error (exit 2)", async (args, message) => {
    const run = await trigger(args as string[]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("a receiver that cannot be reached: exit 2 with the reason", async () => {
    const port = await closedPort();
    const run = await trigger(["payment.succeeded", ...base(`http://127.0.0.1:${port}/notify`)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`mop trigger: could not reach http://127\\.0\\.0\\.1:${port}/notify: ECONNREFUSED`));
  });

  it("as a process, with the secret from MOP_APP_SECRET: exit 0, what the receiver answered, no secret anywhere", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["trigger", "payment.succeeded", "--notify-url", receiver.url, "--app-key", APP_KEY, "--variant", "exact"])})).then((code) => { process.exitCode = code; })`],
      { cwd: packageRoot(), env: { ...process.env, NODE_OPTIONS: "", MOP_APP_SECRET: SECRET } },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, output).toBe(0);
    expect(output).toMatch(/the event: HTTP 200 "success"/);
    expect(output).not.toContain(SECRET);
    expect(handled).toHaveLength(1);
  }, 30_000);
});
