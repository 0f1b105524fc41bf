// `npm run bench:team`: the team sandbox under load, on loopback only. A throwaway PostgreSQL
// cluster (fsync on, as a server runs; scripts/lib/postgres-server.ts), two `mop sandbox --store
// postgres://…` processes on one database, and a load generator driving both at full speed for
// 60 s: each connection repeats createOrder then listStores, every request signed afresh. Every
// answer must be 2xx; afterwards every acknowledged order is read back through the OTHER
// instance (nothing lost, nothing only one instance knows). Then, for the side-by-side figure,
// the same workload against one in-memory sandbox (--no-memory skips it). Exit 1 on any failure.
//
//   npm run bench:team
//   npm run bench:team -- --duration 10 --connections 16
import { spawn } from "node:child_process";
import type { AutocannonRequest } from "autocannon";
import { signRequestHeaders } from "../../src/signing/index.js";
import { startPostgresServer } from "../lib/postgres-server.js";
import { runLoad, type LoadResult } from "./lib/load.js";
import { cliPath, CREDENTIALS, cpuSecondsOf, firstSignedAnswer, waitForLine } from "./lib/processes.js";
import { machine, table, writeResults, type Cell } from "./lib/report.js";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!(value > 0)) throw new Error(`--${name} needs a positive number`);
  return value;
}
if (process.argv.includes("--help")) {
  process.stdout.write("Usage: npm run bench:team -- [--duration SECONDS (60)] [--connections N per instance (16)] [--no-memory]\n");
  process.exit(0);
}
const durationSec = option("duration", 60);
const connections = option("connections", 16);
const compareMemory = !process.argv.includes("--no-memory");
const out = (text: string) => process.stdout.write(`${text}\n`);

const BASE = "/open-api/v1";
const ORDER_BODY = JSON.stringify({ merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }] });
const QUOTAS = ["--max-orders-per-app", "999999999", "--max-trades-per-app", "999999999"];

interface Instance {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

async function startInstance(args: string[]): Promise<Instance> {
  const started = performance.now();
  const child = spawn(process.execPath, [cliPath(), "sandbox", "--port", "0", "--quiet", ...QUOTAS, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const match = await waitForLine(child, /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/, 60_000, "mop sandbox");
  const origin = match[1] ?? "";
  await firstSignedAnswer(`${origin}${BASE}/stores?merchantId=10001`, started, 60_000);
  return {
    origin,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const signed = (req: AutocannonRequest, body?: string): AutocannonRequest => ({
  ...req,
  ...(body !== undefined && { body }),
  headers: { ...(body !== undefined && { "content-type": "application/json" }), ...signRequestHeaders({ ...CREDENTIALS, ...(body !== undefined && { body }) }) },
});
const ok = (status: number, body: string) => status >= 200 && status < 300 && body.startsWith('{"code":0,');

/** createOrder then listStores, on every connection; the created order ids go to `orders`. */
function cycle(orders: string[], counts: Record<string, { answers: number; good: number }>): AutocannonRequest[] {
  const count = (name: string, good: boolean) => {
    counts[name] ??= { answers: 0, good: 0 };
    counts[name].answers += 1;
    if (good) counts[name].good += 1;
  };
  return [
    {
      method: "POST",
      path: `${BASE}/orders`,
      setupRequest: (req) => signed(req, ORDER_BODY),
      onResponse: (status, body) => {
        const id = ok(status, body) ? /"data":([0-9]+)\}$/.exec(body)?.[1] : undefined;
        count("createOrder", id !== undefined);
        if (id !== undefined) orders.push(id);
      },
    },
    {
      method: "GET",
      path: `${BASE}/stores?merchantId=10001&pageNo=1&pageSize=10`,
      setupRequest: (req) => signed(req),
      onResponse: (status, body) => count("listStores", ok(status, body)),
    },
  ];
}

/** Reads every order back through `origin`; answers those not found. */
async function readBack(origin: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const seen = new Set<string>();
  let next = 0;
  await runLoad({
    origin,
    basePath: BASE,
    connections: Math.min(16, ids.length),
    amount: ids.length,
    requests: [
      {
        method: "GET",
        setupRequest: (req) => signed({ ...req, path: `${BASE}/orders/${ids[next++ % ids.length] as string}?merchantId=10001` }),
        onResponse: (status, body) => {
          const id = status === 200 ? /"data":\{"id":([0-9]+),/.exec(body)?.[1] : undefined;
          if (id !== undefined) seen.add(id);
        },
      },
    ],
  });
  return ids.filter((id) => !seen.has(id));
}

interface RunResult {
  label: string;
  loads: LoadResult[];
  goodPerSecond: number;
  p99Ms: number;
  orders: number;
  lost: number;
  problems: string[];
  cpuSeconds: Record<string, number>;
}

/** The workload against these instances at once; orders made on instance i are read back through instance (i + 1) mod n. */
async function drive(label: string, instances: Instance[]): Promise<RunResult> {
  const orders = instances.map(() => [] as string[]);
  const counts = instances.map(() => ({}) as Record<string, { answers: number; good: number }>);
  const pids: Record<string, number> = Object.fromEntries([...new Set(instances.map((instance) => instance.pid))].map((pid, i) => [`instance ${i + 1}`, pid]));
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid)]));
  const loads = await Promise.all(instances.map((instance, i) => runLoad({ origin: instance.origin, basePath: BASE, connections, durationSec, requests: cycle(orders[i]!, counts[i]!) })));
  const cpuSeconds = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid) - (cpuBefore[name] ?? 0)]));
  const lost = await Promise.all(instances.map((_, i) => readBack(instances[(i + 1) % instances.length]!.origin, orders[i]!)));
  const problems: string[] = [];
  loads.forEach((load, i) => {
    if (load.non2xx > 0) problems.push(`instance ${i + 1}: ${load.non2xx} answers were not 2xx (${JSON.stringify(load.statusCodes)})`);
    if (load.errors + load.timeouts > 0) problems.push(`instance ${i + 1}: ${load.errors} connection errors, ${load.timeouts} timeouts`);
    if (load.mismatches > 0) problems.push(`instance ${i + 1}: ${load.mismatches} 2xx answers were not the success envelope`);
    if (lost[i]!.length > 0) problems.push(`instance ${i + 1}: ${lost[i]!.length} acknowledged orders not read back (e.g. ${lost[i]!.slice(0, 3).join(", ")})`);
  });
  const all = orders.flat();
  if (all.length !== new Set(all).size) problems.push(`${all.length - new Set(all).size} order ids were handed out twice`);
  if (all.length === 0) problems.push("no order was created");
  const goodPerSecond = loads.reduce((sum, load) => sum + load.rps, 0);
  const p99Ms = Math.max(...loads.map((load) => load.latencyMs.p99));
  const rows: Cell[][] = loads.map((load, i) => [
    `instance ${i + 1}`,
    load.rps,
    load.requests,
    load.latencyMs.p50,
    load.latencyMs.p90,
    load.latencyMs.p99,
    load.latencyMs.max,
    load.non2xx,
    load.errors + load.timeouts,
    `${counts[i]!.createOrder?.good ?? 0} / ${counts[i]!.listStores?.good ?? 0}`,
    `${orders[i]!.length - lost[i]!.length} of ${orders[i]!.length}`,
  ]);
  out(table(label, ["", "good req/s", "answers", "p50 ms", "p90 ms", "p99 ms", "max ms", "non-2xx", "errors", "createOrder / listStores good", "orders read back elsewhere"], rows));
  out(`  total ${goodPerSecond.toFixed(0)} good req/s; CPU seconds used: ${Object.entries(cpuSeconds).map(([name, s]) => `${name} ${s.toFixed(1)}`).join(", ")}`);
  return { label, loads, goodPerSecond, p99Ms, orders: all.length, lost: lost.flat().length, problems, cpuSeconds };
}

out(`Team sandbox load test: 2 instances on one PostgreSQL database, ${connections} connections each, createOrder + listStores for ${durationSec} s (${JSON.stringify(machine())})`);
const postgres = await startPostgresServer({ durable: !process.argv.includes("--no-fsync") });
const results: RunResult[] = [];
try {
  const url = await postgres.createDatabase("mop_bench_team");
  // One starts first and migrates; the second finds the schema and the fixtures there.
  const first = await startInstance(["--store", url, "--store-pool-size", "10"]);
  const second = await startInstance(["--store", url, "--store-pool-size", "10"]);
  try {
    results.push(await drive("Two instances on PostgreSQL", [first, second]));
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
  if (compareMemory) {
    const memory = await startInstance(["--nonce-capacity", "16000000"]);
    try {
      // One in-memory instance takes both loads (a second could not read the first's orders).
      results.push(await drive("One in-memory instance, the same connections in all", [memory, memory]));
    } finally {
      await memory.stop();
    }
  }
} finally {
  await postgres.close();
}

const problems = results.flatMap((result) => result.problems.map((problem) => `${result.label}: ${problem}`));
const file = writeResults("team", {
  machine: machine(),
  connectionsPerInstance: connections,
  durationSec,
  results: results.map(({ label, goodPerSecond, p99Ms, orders, lost, cpuSeconds, loads }) => ({ label, goodPerSecond, p99Ms, orders, lost, cpuSeconds, loads })),
  problems,
});
out(`\nResults written to ${file}`);
if (problems.length > 0) {
  out(`FAILED:\n  ${problems.join("\n  ")}`);
  process.exitCode = 1;
} else {
  out("Every answer was 2xx and every acknowledged order was read back.");
}
