// The signing proxy's added latency: a signed listStores sent straight to the sandbox (the
// client signs) against the same request sent unsigned through `mop proxy --sign` (the proxy
// signs, checks the request against the spec, forwards it, judges the answer). Both the sandbox
// and the proxy run in their own processes, as users run them; requests go one at a time over
// kept-alive loopback connections, direct and proxied interleaved so that machine drift hits
// both alike. Every answer is checked (200 and the success envelope).
//
//   tsx scripts/bench/proxy.ts [--quick]      alone (runs the sources; --built runs dist/)
//   npm run bench -- --only proxy             as a section of the full benchmark
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { CREDENTIALS } from "./lib/processes.js";
import { median, percentileOf, table, type Cell } from "./lib/report.js";

const root = packageRoot();
const PATH = "/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10";
/** The target of issue 11: at most 1 ms added at p50. */
export const PROXY_P50_TARGET_MS = 1;

/** `mop ARGS` from the build (npm run bench builds first) or, run alone, from the sources. */
function mop(built: boolean, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  if (built && !existsSync(join(root, "dist", "src", "cli", "main.js"))) throw new Error("dist/ is missing: run `npm run build` first (npm run bench does).");
  const argv = built
    ? [join(root, "bin", "mop.js"), ...args]
    : ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(args)})).then((code) => { process.exitCode = code; })`];
  return spawn(process.execPath, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "", ...env } });
}

function waitFor(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${text.slice(-500)}`)), 60_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const found = pattern.exec(text);
      if (found) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(found[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => void (text += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}): ${text.slice(-500)}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => (clearTimeout(kill), resolve()));
    child.kill("SIGTERM");
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; answers its wall time in ms after checking the answer is a success. */
function timedGet(origin: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path: PATH, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const elapsed = performance.now() - started;
        const text = Buffer.concat(chunks).toString();
        if (response.statusCode !== 200 || !text.startsWith('{"code":0,')) reject(new Error(`unexpected answer ${response.statusCode}: ${text.slice(0, 200)}`));
        else resolve(elapsed);
      });
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

export interface ProxyLatencyResult {
  pairs: number;
  directP50Ms: number;
  proxiedP50Ms: number;
  addedP50Ms: number;
  directP99Ms: number;
  proxiedP99Ms: number;
  medianPairedDifferenceMs: number;
  targetMs: number;
  met: boolean;
}

export async function proxyLatency(options: { quick: boolean; built: boolean; out: (text: string) => void }): Promise<ProxyLatencyResult> {
  const pairs = options.quick ? 2_000 : 10_000;
  const warmup = options.quick ? 300 : 1_000;
  options.out(`\n== Signing proxy: added latency of \`mop proxy --sign\` for a signed listStores, ${pairs.toLocaleString("en-US")} interleaved pairs after ${warmup} warm-up pairs, one request at a time`);
  const sandbox = mop(options.built, ["sandbox", "--port", "0", "--quiet"]);
  let proxy: ChildProcess | undefined;
  try {
    const sandboxUrl = await waitFor(sandbox, /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/, "mop sandbox");
    proxy = mop(options.built, ["proxy", "--target", sandboxUrl, "--port", "0", "--sign", "--app-key", CREDENTIALS.appKey], { MOP_APP_SECRET: CREDENTIALS.appSecret });
    const proxyUrl = await waitFor(proxy, /mop proxy: (http:\/\/\S+) ->/, "mop proxy");
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < warmup + pairs; i++) {
      // Alternate which goes first, so neither always meets a cold cache.
      const order = i % 2 === 0 ? ["direct", "proxied"] : ["proxied", "direct"];
      for (const which of order) {
        const ms = which === "direct" ? await timedGet(sandboxUrl, signRequestHeaders({ ...CREDENTIALS })) : await timedGet(proxyUrl, {});
        if (i >= warmup) (which === "direct" ? direct : proxied).push(ms);
      }
    }
    const differences = proxied.map((ms, i) => ms - direct[i]!);
    const result: ProxyLatencyResult = {
      pairs,
      directP50Ms: median(direct),
      proxiedP50Ms: median(proxied),
      addedP50Ms: median(proxied) - median(direct),
      directP99Ms: percentileOf(direct, 99),
      proxiedP99Ms: percentileOf(proxied, 99),
      medianPairedDifferenceMs: median(differences),
      targetMs: PROXY_P50_TARGET_MS,
      met: median(proxied) - median(direct) <= PROXY_P50_TARGET_MS,
    };
    const rows: Cell[][] = [
      ["straight to the sandbox (client signs)", result.directP50Ms, result.directP99Ms],
      ["through mop proxy --sign (proxy signs)", result.proxiedP50Ms, result.proxiedP99Ms],
      ["added by the proxy", result.addedP50Ms, null],
    ];
    options.out(table(`ms per request (target: ≤ ${PROXY_P50_TARGET_MS} ms added at p50: ${result.met ? "met" : "MISSED"}; median of paired differences ${result.medianPairedDifferenceMs.toFixed(3)} ms)`, ["path", "p50", "p99"], rows));
    return result;
  } finally {
    agent.destroy();
    if (proxy) await stop(proxy);
    await stop(sandbox);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const quick = process.argv.includes("--quick");
  const result = await proxyLatency({ quick, built: process.argv.includes("--built"), out: (text) => process.stdout.write(`${text}\n`) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
