// `npm run bench:profile`: where the sandbox's CPU goes per request, beside bare Express running
// the same handlers. Each server runs under `--cpu-prof` (250 µs sampling) and answers a fixed
// number of signed requests per operation at 20 connections after a warm-up; only the measured
// windows count, and each frame's share of the samples is scaled to the CPU the process really
// used in the window (/proc), so the figures are µs of CPU per request.
//
//   npm run bench:profile [-- --quick]
//   MOP_BENCH_PROFILE_TARGETS=sandbox     only these of sandbox,bare-express (comma-separated)
//   MOP_BENCH_PROFILE_AMOUNT=N            requests measured per operation (default 20,000; --quick 5,000)
//   MOP_BENCH_TOP=N                       how many frames each table lists (default 25)
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { frameTimes, type FrameTimes } from "./lib/cpu-profile.js";
import { runLoad, signedRequest, type LoadRequest } from "./lib/load.js";
import { cliPath, cpuSecondsOf, firstSignedAnswer, waitForLine } from "./lib/processes.js";
import { parseFlags, table, type Cell } from "./lib/report.js";
import { packageRoot } from "../../src/util/package-root.js";

const flags = parseFlags(process.argv.slice(2));
const amount = Number(process.env.MOP_BENCH_PROFILE_AMOUNT ?? (flags.quick ? 5_000 : 20_000));
const TARGETS = ["sandbox", "bare-express"];
const targets = (process.env.MOP_BENCH_PROFILE_TARGETS ?? TARGETS.join(",")).split(",");
const unknown = targets.filter((name) => !TARGETS.includes(name));
if (unknown.length > 0 || !Number.isInteger(amount) || amount < 4) {
  process.stderr.write(unknown.length > 0 ? `unknown target(s) ${unknown.join(", ")}; known: ${TARGETS.join(", ")}\n` : `MOP_BENCH_PROFILE_AMOUNT must be an integer of at least 4\n`);
  process.exit(2);
}
const top = Number(process.env.MOP_BENCH_TOP ?? 25);
const root = packageRoot();
const out = (text: string) => process.stdout.write(`${text}\n`);

const OPERATIONS: LoadRequest[] = [
  { name: "listStores", method: "GET", path: "/stores?merchantId=10001&pageNo=1&pageSize=10" },
  {
    name: "createOrder",
    method: "POST",
    path: "/orders",
    body: JSON.stringify({ merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }] }),
  },
];

interface Profiled {
  origin: string;
  pid: number;
  child: ChildProcess;
}

async function start(name: string, dir: string): Promise<Profiled> {
  const prof = ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "250"];
  const args =
    name === "sandbox"
      ? [...prof, cliPath(), "sandbox", "--port", "0", "--quiet", "--max-orders-per-app", "999999999", "--max-trades-per-app", "999999999"]
      : [...prof, "--import", "tsx", join(root, "scripts", "bench", "servers", "bare-express.ts")];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const pattern = name === "sandbox" ? /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/ : /listening (http:\/\/\S+)/;
  const match = await waitForLine(child, pattern, 30_000, name);
  const origin = match[1] ?? "";
  await firstSignedAnswer(`${origin}/open-api/v1/stores?merchantId=10001`, performance.now());
  return { origin, pid: child.pid ?? 0, child };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGINT");
  });
}

const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

for (const name of targets) {
  const dir = mkdtempSync(join(tmpdir(), `mop-profile-${name}-`));
  try {
    const server = await start(name, dir);
    const windows: { operation: LoadRequest; from: number; to: number; cpuUs: number }[] = [];
    for (const operation of OPERATIONS) {
      const request = signedRequest(operation, "/open-api/v1");
      await runLoad({ origin: server.origin, basePath: "/open-api/v1", connections: 20, amount: amount / 4, requests: [request] });
      const cpu0 = cpuSecondsOf(server.pid);
      const from = hrtimeUs();
      const run = await runLoad({ origin: server.origin, basePath: "/open-api/v1", connections: 20, amount, requests: [request] });
      const to = hrtimeUs();
      if (run.good !== run.requests) throw new Error(`${name} answered ${run.requests - run.good} ${operation.name} request(s) badly`);
      windows.push({ operation, from, to, cpuUs: (cpuSecondsOf(server.pid) - cpu0) * 1e6 });
    }
    await stop(server.child);
    const file = readdirSync(dir).find((entry) => entry.endsWith(".cpuprofile"));
    if (!file) throw new Error(`${name} wrote no CPU profile`);
    for (const window of windows) {
      const times: FrameTimes = frameTimes(join(dir, file), window);
      const perRequest = window.cpuUs / amount;
      const us = (value: number | undefined) => ((value ?? 0) / times.totalUs) * perRequest;
      const byOwner = new Map<string, number>();
      for (const [key, value] of times.self) byOwner.set(times.owners.get(key) ?? "?", (byOwner.get(times.owners.get(key) ?? "?") ?? 0) + value);
      const ownerRows: Cell[][] = [...byOwner.entries()].sort((a, b) => b[1] - a[1]).map(([owner, value]) => [owner, us(value)]);
      ownerRows.push(["total (CPU per request, /proc)", perRequest]);
      out(table(`${name}, ${window.operation.name}: CPU µs per request by owner (self time)`, ["owner", "µs"], ownerRows));
      const self: Cell[][] = [...times.self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, value]) => [key, us(value)]);
      out(table(`${name}, ${window.operation.name}: top frames, self time (µs per request)`, ["frame", "µs"], self));
      for (const owner of ["this package", "express-openapi-validator"]) {
        const mine: Cell[][] = [...times.self.entries()].filter(([key]) => times.owners.get(key) === owner).sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, value]) => [key, us(value)]);
        if (mine.length > 0) out(table(`${name}, ${window.operation.name}: ${owner}'s frames, self time (µs per request)`, ["frame", "µs"], mine));
      }
      const inclusive: Cell[][] = [...times.inclusive.entries()]
        .filter(([key]) => times.owners.get(key) === "this package" || /express|openapi|ajv|lossless/.test(key))
        .sort((a, b) => b[1] - a[1])
        .slice(0, top * 2)
        .map(([key, value]) => [key, us(value)]);
      out(table(`${name}, ${window.operation.name}: this package's and its libraries' frames, inclusive (µs per request)`, ["frame", "µs"], inclusive));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
