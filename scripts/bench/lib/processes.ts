// The servers under test, each in its own process so that the load generator (this process)
// and the server each have a core of the 2-core machine: the sandbox as users run it (the
// built CLI, `mop sandbox --port 0 --quiet`), bare Express with the sandbox's own handlers and
// no validation (servers/bare-express.ts), and Stoplight Prism's mock server on the same
// bundled spec. Everything listens on 127.0.0.1 only.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signRequestHeaders } from "../../../src/signing/index.js";
import { packageRoot } from "../../../src/util/package-root.js";

export const CREDENTIALS = { appKey: "demo-app-key", appSecret: "demo-app-secret" } as const;

export type TargetName = "sandbox" | "sandbox-log" | "bare-express" | "prism" | "kit" | "kit-bare";

export type ServerName = TargetName | "stub";

export interface ServerProcess {
  name: ServerName;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Prefix of the signed interface's paths: "/open-api/v1", or "" for Prism (it serves the spec's paths as they are). */
  basePath: string;
  pid: number;
  /** ms from spawn until the server answered (or printed its URL). */
  startMs: number;
  /** Resident set size of the server process in MiB (Linux /proc; NaN elsewhere). */
  rssMiB(): number;
  /** CPU seconds (user + system) the server process has used so far (Linux /proc; NaN elsewhere). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const root = packageRoot();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** utime + stime of a process in seconds, from /proc/PID/stat (clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return Number.NaN;
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const text = readFileSync(stat, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function rssMiBOf(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(status, "utf8"));
    if (match) return Number(match[1]) / 1024;
  }
  return Number.NaN;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

/** Waits until a line of the child's stdout matches; answers the match. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    let stderr = "";
    const timer = setTimeout(() => done(new Error(`${what} did not start within ${timeoutMs} ms; stdout: ${buffered.slice(-500)} stderr: ${stderr.slice(-500)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const match = pattern.exec(buffered);
      if (match) done(undefined, match);
    };
    const onErr = (chunk: Buffer) => void (stderr += chunk.toString("utf8"));
    const onExit = (code: number | null) => done(new Error(`${what} exited (${code}) before it was ready; stderr: ${stderr.slice(-1000)}`));
    function done(error?: Error, match?: RegExpExecArray) {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onErr);
      child.off("exit", onExit);
      // Keep draining so a chatty child never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) reject(error);
      else resolve(match as RegExpExecArray);
    }
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onErr);
    child.once("exit", onExit);
  });
}

/** Sends signed GET listStores until one is answered 200; answers ms since `since`. */
export async function firstSignedAnswer(url: string, since: number, timeoutMs = 30_000): Promise<number> {
  const deadline = since + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { headers: signRequestHeaders({ ...CREDENTIALS }) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`no 200 answer from ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The built CLI to run: this package's, or MOP_BENCH_SANDBOX_ROOT's (another build of the
 * package, e.g. an older version, to measure before and after a change in the same run).
 */
export function cliPath(): string {
  const base = process.env.MOP_BENCH_SANDBOX_ROOT || root;
  const dist = join(base, "dist", "src", "cli", "main.js");
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`npm run build\` first (npm run bench does).`);
  return join(base, "bin", "mop.js");
}

// Load runs create far more orders and trades than one app may keep by default, and sign more
// requests within one nonce lifetime (601 s) than one app's share of the default nonce store
// holds (a quarter of 1,000,000): 16,000,000 gives one app 4,000,000, over 6,600 signed requests
// per second for the whole lifetime (docs/performance.md, "Load testing against the sandbox").
const UNBOUNDED_QUOTAS = ["--max-orders-per-app", "999999999", "--max-trades-per-app", "999999999", "--nonce-capacity", "16000000"];

/** `node bin/mop.js sandbox --port 0 --quiet`: the built CLI, exactly as users start it (quotas lifted). */
export async function startSandboxProcess(extraArgs: string[] = [], nodeArgs: string[] = []): Promise<ServerProcess & { bannerMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, cliPath(), "sandbox", "--port", "0", "--quiet", ...UNBOUNDED_QUOTAS, ...extraArgs], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const match = await waitForLine(child, /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/, 30_000, "mop sandbox");
  const bannerMs = performance.now() - started;
  const origin = match[1] ?? "";
  const startMs = await firstSignedAnswer(`${origin}/open-api/v1/stores?merchantId=10001`, started);
  return { name: "sandbox", origin, basePath: "/open-api/v1", pid: child.pid ?? 0, startMs, bannerMs, rssMiB: () => rssMiBOf(child.pid ?? 0), cpuSeconds: () => cpuSecondsOf(child.pid ?? 0), stop: stopper(child) };
}

/** Polls a file until its text matches (the child writes its stdout there, as `mop sandbox > file` would). */
async function waitForFileText(file: string, child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(readFileSync(file, "utf8"));
    if (match) return match;
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it was ready: ${readFileSync(file, "utf8").slice(-1000)}`);
    if (performance.now() > deadline) throw new Error(`${what} did not start within ${timeoutMs} ms: ${readFileSync(file, "utf8").slice(-500)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * `node bin/mop.js sandbox --port 0 > FILE`: the sandbox with its default request log on (one
 * JSON line per request), its standard output a file as when a user redirects it. The file is
 * removed when the process stops; its size is the log written.
 */
export async function startLoggingSandboxProcess(): Promise<ServerProcess & { logBytes(): number }> {
  const dir = mkdtempSync(join(tmpdir(), "mop-bench-log-"));
  const file = join(dir, "sandbox.log");
  const fd = openSync(file, "w");
  const started = performance.now();
  const child = spawn(process.execPath, [cliPath(), "sandbox", "--port", "0", ...UNBOUNDED_QUOTAS], { cwd: root, stdio: ["ignore", fd, "pipe"] });
  closeSync(fd);
  child.stderr?.resume();
  const match = await waitForFileText(file, child, /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/, 30_000, "mop sandbox (request log on)");
  const origin = match[1] ?? "";
  const startMs = await firstSignedAnswer(`${origin}/open-api/v1/stores?merchantId=10001`, started);
  const stop = stopper(child);
  return {
    name: "sandbox-log",
    origin,
    basePath: "/open-api/v1",
    pid: child.pid ?? 0,
    startMs,
    rssMiB: () => rssMiBOf(child.pid ?? 0),
    cpuSeconds: () => cpuSecondsOf(child.pid ?? 0),
    logBytes: () => (existsSync(file) ? statSync(file).size : 0),
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A server script of servers/ (through tsx) that prints "listening http://127.0.0.1:PORT" and
 * serves the signed interface under /open-api/v1; ready once it answered a signed listStores.
 */
export async function startScriptProcess(name: ServerName, script: string, options: { waitForAnswer?: boolean; args?: string[] } = {}): Promise<ServerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "bench", "servers", script), ...(options.args ?? [])], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const match = await waitForLine(child, /listening (http:\/\/\S+)/, 30_000, script);
  const origin = match[1] ?? "";
  const startMs = options.waitForAnswer === false ? performance.now() - started : await firstSignedAnswer(`${origin}/open-api/v1/stores?merchantId=10001`, started);
  return { name, origin, basePath: "/open-api/v1", pid: child.pid ?? 0, startMs, rssMiB: () => rssMiBOf(child.pid ?? 0), cpuSeconds: () => cpuSecondsOf(child.pid ?? 0), stop: stopper(child) };
}

/** Bare Express with the sandbox's handlers and no validation (servers/bare-express.ts). */
export const startBareExpressProcess = (): Promise<ServerProcess> => startScriptProcess("bare-express", "bare-express.ts");

/** A server answering a canned listStores envelope to everything (servers/stub.ts), for the client's own cost. */
export const startStubProcess = (): Promise<ServerProcess> => startScriptProcess("stub", "stub.ts", { waitForAnswer: false });

/** `prism mock -v silent generated/signed.openapi.json` (Stoplight Prism, static examples). */
export async function startPrismProcess(): Promise<ServerProcess> {
  const port = await freePort();
  const prism = join(root, "node_modules", "@stoplight", "prism-cli", "dist", "index.js");
  if (!existsSync(prism)) throw new Error("@stoplight/prism-cli is not installed (npm ci installs it as a devDependency)");
  const started = performance.now();
  const child = spawn(process.execPath, [prism, "mock", "-h", "127.0.0.1", "-p", String(port), "-v", "silent", join(root, "generated", "signed.openapi.json")], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.resume();
  child.stderr.resume();
  const origin = `http://127.0.0.1:${port}`;
  const startMs = await firstSignedAnswer(`${origin}/stores?merchantId=10001`, started, 60_000);
  return { name: "prism", origin, basePath: "", pid: child.pid ?? 0, startMs, rssMiB: () => rssMiBOf(child.pid ?? 0), cpuSeconds: () => cpuSecondsOf(child.pid ?? 0), stop: stopper(child) };
}

export interface Target {
  /** How tables name it. */
  label: string;
  start(): Promise<ServerProcess>;
}

/**
 * The throughput benchmark's targets, in the order they are started; each is measured in every
 * round. Adding one takes a script in servers/ that prints "listening http://127.0.0.1:PORT" and
 * serves the signed interface under /open-api/v1, an entry here (its name added to TargetName),
 * and its goal in GOALS in ../index.ts. The server kit is two of them: the kit with constant
 * handlers, and bare Express with the same handlers (servers/kit-constant.ts), its own baseline.
 */
export const TARGETS: Partial<Record<TargetName, Target>> = {
  sandbox: { label: "sandbox", start: () => startSandboxProcess() },
  "sandbox-log": { label: "sandbox + request log", start: () => startLoggingSandboxProcess() },
  "bare-express": { label: "bare Express", start: () => startBareExpressProcess() },
  prism: { label: "Prism", start: () => startPrismProcess() },
  kit: { label: "server kit, constant handlers", start: () => startScriptProcess("kit", "kit-constant.ts", { args: ["kit"] }) },
  "kit-bare": { label: "bare Express, constant handlers", start: () => startScriptProcess("kit-bare", "kit-constant.ts", { args: ["bare"] }) },
};

export function startTarget(name: TargetName): Promise<ServerProcess> {
  const target = TARGETS[name];
  if (!target) throw new Error(`no benchmark target ${name}`);
  return target.start();
}
