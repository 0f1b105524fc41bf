// The Arazzo workflows shipped in generated/ (pay-order, refund-order, cancel-order, and the
// scenarios payment-unknown and retry-after-internal-error), linted by
// Redocly and run by Redocly Respect — a workflow runner we did not write — against the sandbox
// as a user starts it (`mop sandbox --id-range safe`), through the signing proxy (`mop proxy
// --sign`), since Respect cannot compute the HMAC. A receiver takes the callbacks the sandbox
// delivers; the pay-order workflow reads that delivery back from the control API's log.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCallback } from "../../src/callbacks/index.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
const REDOCLY = join(root, "node_modules", "@redocly", "cli", "bin", "cli.js");
const WORKFLOWS = join(root, "generated", "payment.arazzo.yaml");
const SECRET = "demo-app-secret";

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `mop <args>` from the sources and resolves once its output matches `ready`. */
async function startMop(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<Running & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(args)})).then((code) => { process.exitCode = code; })`], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mop ${args[0]} did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`mop ${args[0]} exited (${code}): ${output}`));
    });
  });
  return {
    child,
    match,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

interface RespectRun {
  status: number | null;
  output: string;
  report: any;
}

/**
 * `redocly respect` on the shipped workflows; its JSON report is read back. Asynchronous, so the
 * callback receiver in this process keeps answering while Respect runs.
 */
async function respect(args: string[]): Promise<RespectRun> {
  const dir = mkdtempSync(join(tmpdir(), "mop-respect-"));
  const reportFile = join(dir, "report.json");
  try {
    const child = spawn(process.execPath, [REDOCLY, "respect", WORKFLOWS, "--json-output", reportFile, ...args], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: "", NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let report: unknown;
    try {
      report = JSON.parse(readFileSync(reportFile, "utf8"));
    } catch {
      report = undefined;
    }
    return { status, output, report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let sandbox: Running;
let proxy: Running;
let receiver: Server;
let sandboxUrl: string;
let proxyUrl: string;
const callbacks: { type: string; tradeNo: string; verified: boolean }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const rawBody = Buffer.concat(chunks);
      const verdict = await verifyCallback({ headers: req.headers, rawBody, appKey: "demo-app-key", secrets: [SECRET] });
      const event = JSON.parse(rawBody.toString("utf8")) as { type: string; data: { tradeNo: string } };
      callbacks.push({ type: event.type, tradeNo: event.data.tradeNo, verified: verdict.ok });
      res.writeHead(200, { "content-type": "text/plain" }).end("success");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()));
  const started = await startMop(["sandbox", "--port", "0", "--id-range", "safe", "--allow-insecure-notify", "--callback-schedule", "200ms,200ms", "--quiet"], /Validators compiled/);
  sandbox = started;
  sandboxUrl = /Signed interface\s+(http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/.exec(started.output())![1]!;
  proxy = await startMop(["proxy", "--target", sandboxUrl, "--port", "0", "--sign", "--app-key", "demo-app-key"], /mop proxy: (http:\/\/127\.0\.0\.1:\d+) ->/, { MOP_APP_SECRET: SECRET });
  proxyUrl = (proxy as Running & { match: RegExpExecArray }).match[1]!;
}, 120_000);

afterAll(async () => {
  await Promise.all([proxy?.stop(), sandbox?.stop()]);
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

describe("the shipped Arazzo workflows", () => {
  it("are Arazzo 1.0.1, point at the bundles beside them, and pass Redocly's lint", () => {
    const document = parse(readFileSync(WORKFLOWS, "utf8")) as { arazzo: string; info: { version: string }; sourceDescriptions: { name: string; url: string }[]; workflows: { workflowId: string }[] };
    expect(document.arazzo).toBe("1.0.1");
    // The workflows are part of the contract: they carry its version.
    expect(document.info.version).toBe((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version);
    expect(document.sourceDescriptions).toEqual([
      { name: "signed", url: "./signed.openapi.json", type: "openapi" },
      { name: "sandbox", url: "./sandbox-control.openapi.json", type: "openapi" },
    ]);
    expect(document.workflows.map((workflow) => workflow.workflowId)).toEqual(["pay-order", "refund-order", "cancel-order", "payment-unknown", "retry-after-internal-error"]);
    const lint = spawnSync(process.execPath, [REDOCLY, "lint", WORKFLOWS, "--format=stylish"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(lint.status, `${lint.stdout}\n${lint.stderr}`).toBe(0);
  }, 60_000);

  it("the sandbox started with --id-range safe says so", () => {
    expect(sandbox.output()).toContain("Id range: safe (every id below 2^53; 3 fixture records with larger ids left out).");
  });

  it("all pass under redocly respect through mop proxy --sign against mop sandbox --id-range safe", async () => {
    const run = await respect([
      "--server",
      `signed=${proxyUrl}/open-api/v1,sandbox=${sandboxUrl}/sandbox`,
      "--input",
      JSON.stringify({ merchantId: 10001, openUserId: "respect-buyer", notifyUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/payment-callbacks` }),
    ]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toMatch(/Workflows: 5 passed, 5 total/);
    const files = Object.values(run.report?.files ?? {}) as { totalWorkflows: number; executedWorkflows: { workflowId: string; status: string }[] }[];
    expect(files).toHaveLength(1);
    expect(files[0]!.executedWorkflows.map((workflow) => [workflow.workflowId, workflow.status])).toEqual(
      expect.arrayContaining([
        ["pay-order", "success"],
        ["refund-order", "success"],
        ["cancel-order", "success"],
        ["payment-unknown", "success"],
        ["retry-after-internal-error", "success"],
      ]),
    );
    // pay-order ran twice (on its own and inside refund-order), payment-unknown once: three
    // signed callbacks arrived.
    const payments = callbacks.filter((callback) => callback.type === "payment.succeeded");
    expect(payments).toHaveLength(3);
    expect(payments.every((callback) => callback.verified)).toBe(true);
    // The secret was never on Respect's command line, and never in its output.
    expect(run.output).not.toContain(SECRET);
  }, 150_000);

  it("fail without the signing proxy: Respect cannot sign, and the sandbox refuses with 100001", async () => {
    const run = await respect(["--workflow", "cancel-order", "--verbose", "--server", `signed=${sandboxUrl}/open-api/v1,sandbox=${sandboxUrl}/sandbox`]);
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toMatch(/Workflows: 1 failed, 1 total/);
    expect(run.output).toMatch(/"code": 100001/);
  }, 150_000);
});
