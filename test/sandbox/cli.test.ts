// `mop sandbox`: options, the banner, request logs, and a clean stop on SIGINT/SIGTERM.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSchedule, sandboxCommand } from "../../src/cli/sandbox.js";
import { main } from "../../src/cli/main.js";
import { defaultFixturesText } from "../../src/sandbox/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { StartedProcesses, type StartedProcess } from "../support/process.js";
import { DEMO } from "../support/sandbox.js";

function fakeIo() {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env: {} } };
}

describe("options", () => {
  it("--help lists every option", async () => {
    const { out, io } = fakeIo();
    expect(await sandboxCommand(["--help"], io)).toBe(0);
    for (const option of ["--host", "--port", "--fixtures", "--print-fixtures", "--callback-schedule", "--allow-insecure-notify", "--quiet"]) expect(out.stdout).toContain(option);
  });

  it("--print-fixtures prints the default data set exactly", async () => {
    const { out, io } = fakeIo();
    expect(await sandboxCommand(["--print-fixtures"], io)).toBe(0);
    expect(out.stdout).toBe(defaultFixturesText());
    expect(out.stdout).toContain("9007199254740993");
  });

  it("parses a compressed callback schedule", () => {
    expect(parseSchedule("1s,1s,5s")).toEqual([1000, 1000, 5000]);
    expect(parseSchedule("250ms, 2m,1h,1.5s")).toEqual([250, 120_000, 3_600_000, 1500]);
    expect(() => parseSchedule("1s,soon")).toThrow(/"soon"/);
  });

  it.each([
    [["--port", "http"], /--port must be a number/],
    [["--port", "70000"], /--port must be a number/],
    [["--callback-schedule", "5 minutes"], /--callback-schedule/],
    [["--colour"], /Unknown option '--colour'/],
    [["--fixtures", "/no/such/file.json"], /cannot read --fixtures/],
    [["--nonce-capacity", "0"], /--nonce-capacity must be a whole number/],
    [["--nonce-capacity", "100", "--nonce-store", "redis://127.0.0.1:1/0"], /--nonce-capacity sizes the memory nonce store/],
  ])("refuses %j as a usage error", async (args, message) => {
    const { out, io } = fakeIo();
    expect(await main(["sandbox", ...args], io)).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it("refuses fixtures that do not fit the schema, naming the file and the place", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mop-fixtures-")), "bad.json");
    writeFileSync(file, defaultFixturesText().replace('"latitude": 31.2345', '"latitude": 310'));
    const { out, io } = fakeIo();
    expect(await sandboxCommand(["--fixtures", file, "--print-fixtures"], io)).toBe(1);
    expect(out.stderr).toContain(file);
    expect(out.stderr).toContain("/stores/0/latitude must be <= 90");
  });
});

const started = new StartedProcesses();
afterAll(() => started.stopAll());

/** Starts `mop sandbox` in a child process (through tsx, from the sources); resolves once its banner is out. */
function startCli(args: string[]): Promise<StartedProcess> {
  const script = `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["sandbox", ...args])})).then((code) => { process.exitCode = code; })`;
  return started.start(process.execPath, ["--import", "tsx", "-e", script], { cwd: packageRoot(), env: { ...process.env, NODE_OPTIONS: "" }, ready: /Press Ctrl\+C to stop\./, timeoutMs: 20_000 });
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

describe("running", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("prints its URLs and credentials, logs requests, and stops on %s", async (signal) => {
    const { child, output } = await startCli(["--port", "0", "--callback-schedule", "1s,1s,5s"]);
    const text = output();
    const base = /Signed interface\s+(http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/.exec(text)?.[1];
    expect(base).toBeDefined();
    for (const line of [`${base}/open-api/v1`, `${base}/open-api`, `${base}/v1`, `${base}/sandbox`, `${base}/cashier/{tradeNo}`, `${base}/docs`, "demo-app-key", "demo-app-secret", "demo-api-key"]) {
      expect(text).toContain(line);
    }
    expect(Number(/listening \((\d+) ms after start\)/.exec(text)?.[1])).toBeLessThan(10_000);

    const answer = await fetch(`${base}/open-api/v1/merchants`, { headers: signRequestHeaders(DEMO) });
    expect(answer.status).toBe(200);
    const line = await new Promise<string>((resolve) => {
      const check = () => {
        const found = output().split("\n").find((l) => l.includes('"operationId":"listMerchants"'));
        if (found) resolve(found);
        else setTimeout(check, 20);
      };
      check();
    });
    expect(JSON.parse(line)).toMatchObject({ method: "GET", path: "/open-api/v1/merchants", operationId: "listMerchants", code: 0, status: 200, durationMs: expect.any(Number), time: expect.any(String) });

    const exit = exited(child);
    child.kill(signal);
    expect(await exit).toBe(0);
    expect(output()).toContain("Sandbox stopped.");
  }, 30_000);

  it("--nonce-capacity sizes the memory nonce store: past an app's share, signed requests are refused with 100006", async () => {
    // 8 nonces in all, each app's share a quarter of them: 2.
    const { child, output } = await startCli(["--port", "0", "--quiet", "--nonce-capacity", "8"]);
    const base = /Signed interface\s+(http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/.exec(output())?.[1];
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const headers = signRequestHeaders({ ...DEMO, body: "" });
      codes.push(((await (await fetch(`${base}/open-api/v1/merchants`, { headers })).json()) as { code: number }).code);
    }
    expect(codes).toEqual([0, 0, 100006]);
    const exit = exited(child);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 30_000);

  it("--quiet prints no request lines", async () => {
    const { child, output } = await startCli(["--port", "0", "--quiet"]);
    const base = /Key-based\s+(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output())?.[1];
    expect((await fetch(`${base}/v1/merchants`, { headers: { Authorization: "Bearer demo-api-key" } })).status).toBe(200);
    const exit = exited(child);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(output()).not.toContain('"operationId"');
  }, 30_000);
});
