// `mop proxy` as a command: options, exit codes, the banner, violation logs, and that no secret
// is ever printed (stdout, stderr, JSON lines), in-process and as a real child process.
import { spawn } from "node:child_process";
import { connect, createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Command } from "../../src/cli/commands.js";
import type { Subcommand } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/main.js";
import { createProxyCommand, proxyCommand } from "../../src/cli/proxy.js";
import { ProxyConfigError, startProxy } from "../../src/proxy/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { packageRoot } from "../../src/util/package-root.js";

const SECRET = "demo-app-secret";

function fakeIo(env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env } };
}

/** The whole answer to one raw request (Connection: close), as text. */
function rawAnswer(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.on("data", (chunk: Buffer) => void (text += chunk.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(request);
  });
}

/** As main() runs it: usage errors reported and turned into exit code 2. */
function proxy(command: Subcommand): Command {
  return { name: "proxy", summary: "", run: command };
}

let sandbox: Sandbox;
let listening: ListeningSandbox;
beforeAll(async () => {
  // The real clock: the proxy under test signs with it.
  sandbox = createSandbox();
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => sandbox.close());

describe("options", () => {
  it("--help lists every option and exits 0", async () => {
    const { out, io } = fakeIo();
    expect(await proxyCommand(["--help"], io)).toBe(0);
    for (const option of ["--target", "--host", "--port", "--allowed-host", "--app-key", "--app-secret", "--sign", "--replace-signature", "--timeout", "--fail-on-violation", "--strict-http", "--json", "MOP_APP_SECRET"]) expect(out.stdout).toContain(option);
  });

  it.each([
    [[], {}, /--target must be an http\(s\) URL/],
    [["--target", "ftp://example.com"], {}, /--target must be an http\(s\) URL/],
    [["--target", "http://127.0.0.1:1", "--sign"], {}, /--sign needs the app to sign as: --app-key KEY and its secret \(--app-secret SECRET or the MOP_APP_SECRET/],
    [["--target", "http://127.0.0.1:1", "--sign", "--app-key", "demo-app-key"], {}, /--sign needs .* secret/],
    [["--target", "http://127.0.0.1:1", "--sign", "--app-secret", SECRET], {}, /--sign needs .*--app-key KEY/],
    [["--target", "http://127.0.0.1:1", "--sign"], { MOP_APP_SECRET: SECRET }, /--sign needs .*--app-key KEY/],
    [["--target", "http://127.0.0.1:1", "--replace-signature"], {}, /--replace-signature works only with --sign/],
    [["--target", "http://127.0.0.1:1", "--app-key", "a", "--app-key", "b", "--app-secret", SECRET], {}, /one --app-secret per --app-key/],
    [["--target", "http://127.0.0.1:1", "--port", "http"], {}, /--port must be a whole number from 0 to 65535/],
    [["--target", "http://127.0.0.1:1", "--port", "70000"], {}, /--port must be a whole number/],
    [["--target", "http://127.0.0.1:1", "--timeout", "0"], {}, /--timeout must be a whole number of milliseconds/],
    [["--target", "http://127.0.0.1:1", "--timeout", "5s"], {}, /--timeout must be a whole number of milliseconds/],
    [["--target", "http://127.0.0.1:1", "--colour"], {}, /Unknown option '--colour'/],
    [["--target", "http://127.0.0.1:1", "--port", "0", "--allowed-host", "http://proxy.internal"], {}, /--allowed-host: allowedHosts takes host names without scheme, port or path/],
    [["--target", "http://127.0.0.1:1", "--port", "0", "--allowed-host", "proxy.internal:4020"], {}, /--allowed-host: .*"proxy\.internal:4020"/],
  ])("%j exits 2 with a clear message and no secret", async (args, env, message) => {
    const { out, io } = fakeIo(env);
    const command = createProxyCommand({ stopSignal: Promise.resolve() });
    expect(await runCommand(proxy(command), args, io)).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it("exits 2 when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const { out, io } = fakeIo();
      const command = createProxyCommand({ stopSignal: Promise.resolve() });
      expect(await runCommand(proxy(command), ["--target", listening.url, "--port", String(port)], io)).toBe(2);
      expect(out.stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe("running in-process", () => {
  it("signs with MOP_APP_SECRET, logs violations as JSON lines, stops with 0, never prints the secret", async () => {
    const { out, io } = fakeIo({ MOP_APP_SECRET: SECRET });
    let stop!: () => void;
    let url!: string;
    let exit!: Promise<number>;
    const listeningProxy = new Promise<void>((resolve) => {
      const command = createProxyCommand({ stopSignal: new Promise((r) => (stop = r)), onListening: (u) => ((url = u), resolve()) });
      exit = command(["--target", listening.url, "--port", "0", "--sign", "--app-key", "demo-app-key", "--json", "--fail-on-violation"], io);
    });
    await listeningProxy;
    expect(out.stdout).toMatch(/^mop proxy: http:\/\/127\.0\.0\.1:\d+ -> http:\/\/127\.0\.0\.1:\d+ \(signing as demo-app-key\)\n$/);

    const served = await fetch(`${url}/open-api/v1/stores?merchantId=10001`);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { code: number }).code).toBe(0);

    const refused = await fetch(`${url}/open-api/v1/stores?pageSize=0`);
    expect(refused.status).toBe(400);
    const line = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
    expect(line).toMatchObject({ direction: "request", method: "GET", path: "/open-api/v1/stores", operationId: "listStores", problems: [expect.stringContaining("query.pageSize")] });

    stop();
    expect(await exit).toBe(0);
    expect(out.stdout + out.stderr).not.toContain(SECRET);
  });
  it("--allowed-host NAME: that name is answered, another is refused with 100017 (DNS rebinding)", async () => {
    const { io } = fakeIo({ MOP_APP_SECRET: SECRET });
    let stop!: () => void;
    let url!: string;
    let exit!: Promise<number>;
    await new Promise<void>((resolve) => {
      const command = createProxyCommand({ stopSignal: new Promise((r) => (stop = r)), onListening: (u) => ((url = u), resolve()) });
      exit = command(["--target", listening.url, "--port", "0", "--sign", "--app-key", "demo-app-key", "--allowed-host", "proxy.internal", "--allowed-host", "tools.internal"], io);
    });
    const { port } = new URL(url);
    const ask = (host: string) => rawAnswer(url, `GET /open-api/v1/merchants?pageNo=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await ask(`proxy.internal:${port}`)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await ask(`tools.internal:${port}`)).toMatch(/^HTTP\/1\.1 200 /);
    const refused = await ask(`rebind.test:${port}`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('"code":100017');
    stop();
    expect(await exit).toBe(0);
  });

  it("warns loudly when it signs on an address other machines can reach", async () => {
    for (const [host, warned] of [["0.0.0.0", true], ["127.0.0.2", false]] as const) {
      const { out, io } = fakeIo({ MOP_APP_SECRET: SECRET });
      const command = createProxyCommand({ stopSignal: Promise.resolve() });
      expect(await command(["--target", listening.url, "--host", host, "--port", "0", "--sign", "--app-key", "demo-app-key"], io)).toBe(0);
      expect(out.stderr.includes("WARNING: signing for demo-app-key on 0.0.0.0, which is not a loopback address"), out.stderr).toBe(warned);
      expect(out.stdout + out.stderr).not.toContain(SECRET);
    }
  });
});

describe("a --target with credentials", () => {
  const PASSWORD = "s3cr3t-Pa55word";

  it.each([`http://user:${PASSWORD}@127.0.0.1:1`, `https://${PASSWORD}@staging.example.com`, `http://user:${encodeURIComponent("p@ss:" + PASSWORD)}@127.0.0.1:1/base`])("%s exits 2 before listening and never prints the secret", async (target) => {
    const { out, io } = fakeIo({ MOP_APP_SECRET: SECRET });
    let listened = false;
    const command = createProxyCommand({ stopSignal: Promise.resolve(), onListening: () => void (listened = true) });
    expect(await runCommand(proxy(command), ["--target", target, "--port", "0", "--sign", "--app-key", "demo-app-key"], io)).toBe(2);
    expect(out.stderr).toMatch(/--target must not carry credentials \(user:password@\)/);
    expect(listened).toBe(false);
    expect(out.stdout + out.stderr).not.toContain(PASSWORD);
    expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it("startProxy refuses one too, with a ProxyConfigError that does not show it", async () => {
    const error = await startProxy({ target: `http://user:${PASSWORD}@127.0.0.1:1` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProxyConfigError);
    expect((error as ProxyConfigError).field).toBe("target");
    expect(String((error as Error).message)).not.toContain(PASSWORD);
  });

  it("as a process: exit code 2, the reason on stderr, the password in neither stream", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["proxy", "--target", `http://admin:${PASSWORD}@127.0.0.1:${new URL(listening.url).port}`, "--port", "0"])})).then((code) => { process.exitCode = code; })`], {
      cwd: packageRoot(),
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    // A proxy that starts listening instead would never exit: stop it, so the test fails rather than hangs.
    const watchdog = setTimeout(() => child.kill("SIGTERM"), 15_000);
    const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode))).finally(() => clearTimeout(watchdog));
    expect(code).toBe(2);
    expect(stderr).toContain("--target must not carry credentials");
    expect(stdout).not.toMatch(/mop proxy: http/);
    expect(stdout + stderr).not.toContain(PASSWORD);
  }, 30_000);
});

describe("running as a process", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("serves a signed request for an unsigned client and exits 0 on %s; the secret appears nowhere", async (signal) => {
    const child = spawn(process.execPath, ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["proxy", "--target", listening.url, "--port", "0", "--sign", "--app-key", "demo-app-key"])})).then((code) => { process.exitCode = code; })`], {
      cwd: packageRoot(),
      env: { ...process.env, NODE_OPTIONS: "", MOP_APP_SECRET: SECRET },
    });
    let output = "";
    child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const found = /mop proxy: (http:\/\/127\.0\.0\.1:\d+) ->/.exec(output);
        if (found) resolve(found[1]!);
      });
      child.once("exit", (code) => reject(new Error(`mop proxy exited (${code}) before listening: ${output}`)));
    });
    const answer = await fetch(`${url}/open-api/v1/merchants`);
    expect(answer.status).toBe(200);
    // A request the proxy reports: still no secret in the log line.
    await fetch(`${url}/open-api/v1/merchants?pageNo=0`);
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill(signal);
    expect(await exit).toBe(0);
    expect(output).toContain("VIOLATION request GET /open-api/v1/merchants (listMerchants)");
    expect(output).not.toContain(SECRET);
  }, 30_000);
});
