// express-openapi-validator through its public middleware against the sandbox's assembly of its
// parts (src/server/validator.ts): the real sandbox run both ways (servers/validator-sandbox.ts
// swaps in servers/public-validator.ts), side by side with Prism and bare Express as in the
// throughput section, every request freshly signed and every answer checked.
//
//   npm run bench -- --only validator              as a section of the full benchmark
//   npm run bench:validator [-- --quick] [--rounds N] [--duration S] [--connections 1,20,50]
//                                      [--parts throughput,cpu,loop,startup,profile]
//
// Five parts:
//   throughput  good answers per second and the server's CPU per answer (from /proc), for a
//               signed listStores, a createOrder and an invalid listStores (400, 100009); rounds
//               interleaved, the order rotating, ratios as medians of per-round ratios.
//   cpu         the same for the two variants alone, in many rounds of one second.
//   loop        the validator alone, in this process: each variant's handler called in a tight
//               loop with Express's own request and response objects (no socket, no HTTP
//               parser), blocks of calls alternating; CPU µs per call.
//   startup     spawn → first signed 200 of the sandbox, and the validator alone: building it
//               for the signed spec → its first validated answer (servers/validator-startup.ts).
//   profile     `--cpu-prof` of each variant under the same fixed load; where the time goes,
//               per request, and which frames make the difference.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AutocannonRequest } from "autocannon";
import express, { type Request, type RequestHandler, type Response } from "express";
import { loadBundle } from "../../src/contract/index.js";
import { createSpecValidator as createAssembly } from "../../src/server/eov/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { frameTimes, type FrameTimes } from "./lib/cpu-profile.js";
import { runLoad, signedRequest, type LoadRequest } from "./lib/load.js";
import { cpuSecondsOf, firstSignedAnswer, startBareExpressProcess, startPrismProcess, waitForLine } from "./lib/processes.js";
import { machine, median, table, writeResults, type Cell } from "./lib/report.js";
import { createSpecValidator as createPublic } from "./servers/public-validator.js";

const root = packageRoot();
type Variant = "assembly" | "public";
const VARIANTS: Variant[] = ["assembly", "public"];
const LABEL: Record<string, string> = { assembly: "sandbox, assembly", public: "sandbox, public middleware", prism: "Prism", "bare-express": "bare Express" };

const ORDER_BODY = JSON.stringify({
  merchantId: 10001,
  userId: 880000000001,
  orderType: 1,
  items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }],
});

interface Operation extends LoadRequest {
  /** The answer every request must get: a success envelope, or this status and envelope code. */
  expect: { status: 200 } | { status: 400; code: number };
}

const OPERATIONS: Operation[] = [
  { name: "listStores", method: "GET", path: "/stores?merchantId=10001&pageNo=1&pageSize=10", expect: { status: 200 } },
  { name: "createOrder", method: "POST", path: "/orders", body: ORDER_BODY, expect: { status: 200 } },
  { name: "listStores, invalid", method: "GET", path: "/stores?merchantId=10001&pageNo=1&pageSize=1000", expect: { status: 400, code: 100009 } },
];

export interface ValidatorBenchOptions {
  quick: boolean;
  rounds?: number | undefined;
  duration?: number | undefined;
  connections?: number[];
  parts?: Set<string>;
  out: (text: string) => void;
}

interface Target {
  name: string;
  origin: string;
  basePath: string;
  startMs: number;
  bannerMs?: number;
  cpuSeconds(): number;
  stop(): Promise<void>;
}

async function waitForBanner(child: ChildProcess, what: string): Promise<{ origin: string; ms: number }> {
  const started = performance.now();
  const found = await waitForLine(child, /Signed interface\s+(http:\/\/\S+?)\/open-api\/v1\s/, 60_000, what);
  return { origin: found[1] as string, ms: performance.now() - started };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    // A profiled process writes its profile on the way out: give it time.
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => (clearTimeout(kill), resolve()));
    child.kill("SIGTERM");
  });
}

/** The real sandbox (from the sources, through tsx) with the chosen validator. */
async function startVariant(variant: Variant, nodeArgs: string[] = []): Promise<Target> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", join(root, "scripts", "bench", "servers", "validator-sandbox.ts")], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "", MOP_BENCH_VALIDATOR: variant },
  });
  const { origin, ms } = await waitForBanner(child, `sandbox (${variant})`);
  const startMs = await firstSignedAnswer(`${origin}/open-api/v1/stores?merchantId=10001`, started);
  return { name: variant, origin, basePath: "/open-api/v1", startMs, bannerMs: ms, cpuSeconds: () => cpuSecondsOf(child.pid ?? 0), stop: () => stopChild(child) };
}

/** A signed request whose answers are checked against the operation's expectation. */
function checkedRequest(operation: Operation, basePath: string, tally: { expected: number; other: number; sample?: string }): AutocannonRequest {
  const request = signedRequest(operation, basePath);
  const prefix = operation.expect.status === 200 ? '{"code":0,' : `{"code":${operation.expect.code},`;
  return {
    ...request,
    onResponse: (status, body) => {
      if (status === operation.expect.status && body.startsWith(prefix)) tally.expected++;
      else {
        tally.other++;
        tally.sample ??= `${status} ${body.slice(0, 200)}`;
      }
    },
  };
}

interface Measured {
  rps: number;
  cpuUsPerAnswer: number;
  p50: number;
  p99: number;
  expected: number;
  other: number;
}

async function measure(target: Target, operation: Operation, connections: number, durationSec: number): Promise<Measured> {
  const tally = { expected: 0, other: 0 } as { expected: number; other: number; sample?: string };
  const cpu0 = target.cpuSeconds();
  const run = await runLoad({ origin: target.origin, basePath: target.basePath, connections, durationSec, requests: [checkedRequest(operation, target.basePath, tally)], verify: () => true });
  const cpu = target.cpuSeconds() - cpu0;
  if (tally.other > 0 || run.errors + run.timeouts > 0) {
    throw new Error(`${target.name} answered ${operation.name} unexpectedly ${tally.other} time(s) (e.g. ${tally.sample}), ${run.errors} error(s), ${run.timeouts} timeout(s)`);
  }
  return { rps: tally.expected / run.durationSec, cpuUsPerAnswer: (cpu * 1e6) / Math.max(1, tally.expected), p50: run.latencyMs.p50, p99: run.latencyMs.p99, expected: tally.expected, other: tally.other };
}

interface ThroughputPlan {
  /** Where the figures go in the results. */
  key: string;
  /** Also run Prism and bare Express (for the ratios to the targets). */
  baselines: boolean;
  rounds: number;
  duration: number;
}

async function throughput(options: ValidatorBenchOptions, results: Record<string, unknown>, plan: ThroughputPlan): Promise<void> {
  const { duration, rounds } = plan;
  const warmup = options.quick ? 2 : 3;
  const connectionCounts = options.connections ?? [1, 50];
  options.out(
    `\n== express-openapi-validator, public middleware vs the assembly${plan.baselines ? ", with Prism and bare Express" : " alone"}: ${rounds} round(s) of ${duration} s per target after a ${warmup} s warm-up; order rotating`,
  );
  const rows: Cell[][] = [];
  const ratioRows: Cell[][] = [];
  const data: unknown[] = [];
  for (const operation of OPERATIONS) {
    for (const connections of connectionCounts) {
      const targets: Target[] = [];
      try {
        for (const variant of VARIANTS) targets.push(await startVariant(variant));
        // Prism answers its static examples whatever the query: it has no invalid request to compare.
        if (plan.baselines && operation.expect.status === 200) {
          for (const start of [startPrismProcess, startBareExpressProcess]) {
            const server = await start();
            targets.push({ ...server, name: server.name, cpuSeconds: () => server.cpuSeconds(), stop: () => server.stop() });
          }
        }
        for (const target of targets) await runLoad({ origin: target.origin, basePath: target.basePath, connections: 50, durationSec: warmup, requests: [signedRequest(operation, target.basePath)], verify: () => true });
        const perTarget = new Map<string, Measured[]>();
        const ratios: Record<string, number[]> = { publicVsAssembly: [], cpuPublicVsAssembly: [], assemblyVsPrism: [], publicVsPrism: [], assemblyVsBare: [], publicVsBare: [] };
        for (let round = 0; round < rounds; round++) {
          const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
          const thisRound = new Map<string, Measured>();
          for (const target of order) {
            const measured = await measure(target, operation, connections, duration);
            thisRound.set(target.name, measured);
            perTarget.set(target.name, [...(perTarget.get(target.name) ?? []), measured]);
          }
          const rps = (name: string) => thisRound.get(name)?.rps ?? Number.NaN;
          ratios.publicVsAssembly?.push(rps("public") / rps("assembly"));
          ratios.cpuPublicVsAssembly?.push((thisRound.get("public")?.cpuUsPerAnswer ?? Number.NaN) - (thisRound.get("assembly")?.cpuUsPerAnswer ?? Number.NaN));
          ratios.assemblyVsPrism?.push(rps("assembly") / rps("prism"));
          ratios.publicVsPrism?.push(rps("public") / rps("prism"));
          ratios.assemblyVsBare?.push(rps("assembly") / rps("bare-express"));
          ratios.publicVsBare?.push(rps("public") / rps("bare-express"));
        }
        for (const target of targets) {
          const runs = perTarget.get(target.name) ?? [];
          rows.push([operation.name, connections, LABEL[target.name] ?? target.name, median(runs.map((r) => r.rps)), median(runs.map((r) => r.cpuUsPerAnswer)), median(runs.map((r) => r.p50)), median(runs.map((r) => r.p99)), runs.reduce((n, r) => n + r.expected, 0)]);
        }
        const m = (name: string) => median(ratios[name] ?? []);
        ratioRows.push([operation.name, connections, m("publicVsAssembly"), m("cpuPublicVsAssembly"), m("assemblyVsPrism"), m("publicVsPrism"), m("assemblyVsBare"), m("publicVsBare"), (ratios.publicVsAssembly ?? []).map((r) => r.toFixed(2)).join(" ")]);
        data.push({ operation: operation.name, connections, perTarget: Object.fromEntries(perTarget), ratios });
        options.out(`  ${operation.name} at ${connections} connection(s): ${targets.map((t) => `${t.name} ${Math.round(median((perTarget.get(t.name) ?? []).map((r) => r.rps)))}/s`).join(", ")}`);
      } finally {
        for (const target of targets) await target.stop();
      }
    }
  }
  options.out(table("Answers per second (expected answers only), server CPU per answer (µs, from /proc), latency (ms); medians of rounds", ["operation", "conns", "target", "answers/s", "CPU µs/answer", "p50 ms", "p99 ms", "answers"], rows));
  options.out(
    table(
      "Ratios, medians of per-round ratios (targets: sandbox ≥ 1.3 × Prism; ≥ 0.75 × bare Express)",
      ["operation", "conns", "public ÷ assembly", "public − assembly CPU µs", "assembly × Prism", "public × Prism", "assembly × bare", "public × bare", "per round public ÷ assembly"],
      ratioRows,
    ),
  );
  results[plan.key] = { durationSec: duration, rounds, warmupSec: warmup, runs: data };
}

function runStartupProbe(variant: Variant): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "bench", "servers", "validator-startup.ts"), variant], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => void (text += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => void (text += chunk.toString("utf8")));
    child.once("exit", (code) => {
      const line = /\{"variant".*\}/.exec(text);
      if (code !== 0 || !line) return reject(new Error(`validator start-up probe (${variant}) exited ${code}: ${text.slice(-800)}`));
      resolve((JSON.parse(line[0]) as { firstAnswerMs: number }).firstAnswerMs);
    });
  });
}

async function startup(options: ValidatorBenchOptions, results: Record<string, unknown>): Promise<void> {
  const runs = options.quick ? 3 : 7;
  options.out(`\n== Start-up, ${runs} runs per variant, alternating: the sandbox (spawn → first signed 200, both through tsx) and the validator alone (built for the signed spec → first validated answer)`);
  const times: Record<string, { sandbox: number[]; validator: number[] }> = { assembly: { sandbox: [], validator: [] }, public: { sandbox: [], validator: [] } };
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      const target = await startVariant(variant);
      await target.stop();
      times[variant]?.sandbox.push(target.startMs);
      times[variant]?.validator.push(await runStartupProbe(variant));
    }
  }
  const rows: Cell[][] = [];
  for (const variant of VARIANTS) {
    const t = times[variant] as { sandbox: number[]; validator: number[] };
    rows.push([LABEL[variant], "sandbox: first signed 200", median(t.sandbox), Math.min(...t.sandbox), Math.max(...t.sandbox)]);
    rows.push([LABEL[variant], "validator alone: first answer", median(t.validator), Math.min(...t.validator), Math.max(...t.validator)]);
  }
  options.out(table("ms", ["variant", "milestone", "median", "min", "max"], rows));
  results.startup = { runs, times };
}

/** A request as Express builds it (its prototypes, this app's settings), without a socket. */
function expressRequest(app: express.Express, method: string, url: string, body?: unknown): { req: Request; res: Response } {
  const req = Object.create(app.request) as Request;
  const res = Object.create(app.response) as Response;
  const text = body === undefined ? undefined : JSON.stringify(body);
  Object.assign(req, {
    method,
    url,
    originalUrl: url,
    baseUrl: "",
    params: {},
    headers: { host: "127.0.0.1", ...(text !== undefined && { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) }) },
    res,
    ...(text !== undefined && { body: JSON.parse(text) as unknown }),
  });
  Object.assign(res, { req, locals: {} });
  return { req, res };
}

async function loop(options: ValidatorBenchOptions, results: Record<string, unknown>): Promise<void> {
  const calls = options.quick ? 200 : 500;
  const blocks = options.quick ? 8 : 24;
  options.out(`\n== The validator alone, in process: ${blocks} blocks of ${calls} calls per variant and request, alternating; Express's request and response objects, no socket`);
  const spec = loadBundle("signed");
  const app = express();
  const handlers: Record<Variant, RequestHandler> = { assembly: createAssembly(spec).handle, public: createPublic(spec).handle };
  const order = JSON.parse(ORDER_BODY) as unknown;
  const requests = [
    { name: "listStores", method: "GET", url: "/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10", status: 0 },
    { name: "createOrder", method: "POST", url: "/open-api/v1/orders", body: order, status: 0 },
    { name: "listStores, invalid", method: "GET", url: "/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=1000", status: 400 },
  ];
  const call = (handler: RequestHandler, request: (typeof requests)[number]) =>
    new Promise<void>((resolve, reject) => {
      const { req, res } = expressRequest(app, request.method, request.url, request.body);
      void handler(req, res, (error?: unknown) => {
        const status = (error as { status?: number } | undefined)?.status ?? (error === undefined ? 0 : 500);
        const matched = (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
        if (status !== request.status || matched !== request.name.split(",")[0]) reject(new Error(`${request.name}: status ${status}, operation ${matched}: ${String(error)}`));
        else resolve();
      });
    });
  const rows: Cell[][] = [];
  const data: Record<string, unknown> = {};
  for (const request of requests) {
    // Warm-up: load the spec, compile the operation's validators, let the JIT settle.
    for (const variant of VARIANTS) for (let i = 0; i < calls * 2; i++) await call(handlers[variant], request);
    const cpu: Record<Variant, number[]> = { assembly: [], public: [] };
    const differences: number[] = [];
    for (let block = 0; block < blocks; block++) {
      const perBlock = {} as Record<Variant, number>;
      for (const variant of block % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const before = process.cpuUsage();
        for (let i = 0; i < calls; i++) await call(handlers[variant], request);
        const used = process.cpuUsage(before);
        perBlock[variant] = (used.user + used.system) / calls;
        cpu[variant].push(perBlock[variant]);
      }
      differences.push(perBlock.public - perBlock.assembly);
    }
    rows.push([request.name, median(cpu.assembly), median(cpu.public), median(differences), median(cpu.public) / median(cpu.assembly)]);
    data[request.name] = { calls, blocks, cpuUsPerCall: cpu, medianDifferenceUs: median(differences) };
  }
  options.out(table("CPU µs per call of the validator's handler (median of blocks)", ["request", "assembly", "public", "difference (median of blocks)", "public ÷ assembly"], rows));
  results.loop = data;
}

const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

async function profile(options: ValidatorBenchOptions, results: Record<string, unknown>): Promise<void> {
  const amount = options.quick ? 10_000 : 30_000;
  options.out(`\n== CPU profiles (--cpu-prof, 250 µs sampling): each variant answers ${amount.toLocaleString("en-US")} signed requests per operation at 50 connections after a warm-up; only the measured windows are counted`);
  // A sampling profiler also charges frames for time the process spends waiting for a core (the
  // machine is shared), so each frame's share of the samples is scaled to the CPU time the
  // process really used in the window (/proc).
  const perVariant: Record<string, Record<string, { requests: number; cpuUs: number; times: FrameTimes }>> = {};
  for (const variant of VARIANTS) {
    const dir = mkdtempSync(join(tmpdir(), `mop-cpu-prof-${variant}-`));
    try {
      const target = await startVariant(variant, ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "250"]);
      const windows: { operation: Operation; from: number; to: number; cpuUs: number }[] = [];
      try {
        for (const operation of OPERATIONS.filter((o) => o.expect.status === 200)) {
          await runLoad({ origin: target.origin, basePath: target.basePath, connections: 50, amount: amount / 5, requests: [signedRequest(operation, target.basePath)], verify: () => true });
          const tally = { expected: 0, other: 0 };
          const cpu0 = target.cpuSeconds();
          const from = hrtimeUs();
          await runLoad({ origin: target.origin, basePath: target.basePath, connections: 50, amount, requests: [checkedRequest(operation, target.basePath, tally)], verify: () => true });
          const to = hrtimeUs();
          const cpuUs = (target.cpuSeconds() - cpu0) * 1e6;
          if (tally.other > 0) throw new Error(`${variant} answered ${operation.name} unexpectedly ${tally.other} time(s) while profiled`);
          windows.push({ operation, from, to, cpuUs });
        }
      } finally {
        await target.stop();
      }
      const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
      if (!file) throw new Error(`the ${variant} sandbox wrote no CPU profile`);
      perVariant[variant] = {};
      for (const window of windows) {
        const times = frameTimes(join(dir, file), window);
        if (times.totalUs === 0) throw new Error("no profile samples fall in the measured window (clock mismatch?)");
        (perVariant[variant] as Record<string, { requests: number; cpuUs: number; times: FrameTimes }>)[window.operation.name] = { requests: amount, cpuUs: window.cpuUs, times };
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const summary: Record<string, unknown> = {};
  for (const operation of OPERATIONS.filter((o) => o.expect.status === 200)) {
    const a = perVariant.assembly?.[operation.name];
    const p = perVariant.public?.[operation.name];
    if (!a || !p) continue;
    // µs of real CPU per request: the frame's share of the window's samples × the window's CPU.
    const usA = (value: number | undefined) => ((value ?? 0) / a.times.totalUs) * (a.cpuUs / a.requests);
    const usP = (value: number | undefined) => ((value ?? 0) / p.times.totalUs) * (p.cpuUs / p.requests);
    const owners = (times: FrameTimes) => {
      const byOwner = new Map<string, number>();
      for (const [key, value] of times.self) {
        const owner = times.owners.get(key) ?? "?";
        byOwner.set(owner, (byOwner.get(owner) ?? 0) + value);
      }
      return byOwner;
    };
    const ownersA = owners(a.times);
    const ownersP = owners(p.times);
    const ownerRows: Cell[][] = [...new Set([...ownersA.keys(), ...ownersP.keys()])]
      .map((owner): Cell[] => [owner, usA(ownersA.get(owner)), usP(ownersP.get(owner)), usP(ownersP.get(owner)) - usA(ownersA.get(owner))])
      .sort((x, y) => Math.abs(Number(y[3])) - Math.abs(Number(x[3])))
      .slice(0, 10);
    ownerRows.push(["total: CPU per request (/proc)", usA(a.times.totalUs), usP(p.times.totalUs), usP(p.times.totalUs) - usA(a.times.totalUs)]);
    options.out(table(`${operation.name}: CPU µs per request by owner of the frame (self time), largest differences first`, ["owner", "assembly", "public", "difference"], ownerRows));
    // Frames whose self time differs most.
    const frames = [...new Set([...a.times.self.keys(), ...p.times.self.keys()])]
      .map((key): Cell[] => [key, usA(a.times.self.get(key)), usP(p.times.self.get(key)), usP(p.times.self.get(key)) - usA(a.times.self.get(key))])
      .sort((x, y) => Number(y[3]) - Number(x[3]))
      .slice(0, 12);
    options.out(table(`${operation.name}: the frames the public path spends more in (self time, µs per request)`, ["frame", "assembly", "public", "difference"], frames));
    // EOV's and its path-to-regexp's frames, inclusive of what they call.
    const eov = [...p.times.inclusive.entries()]
      .filter(([key]) => /express-openapi-validator\//.test(key))
      .sort((x, y) => y[1] - x[1])
      .slice(0, 12)
      .map(([key, value]): Cell[] => [key, usA(a.times.inclusive.get(key)), usP(value)]);
    options.out(table(`${operation.name}: express-openapi-validator's frames, inclusive of what they call (µs per request)`, ["frame", "assembly", "public"], eov));
    summary[operation.name] = { cpuUsPerRequest: { assembly: a.cpuUs / a.requests, public: p.cpuUs / p.requests }, byOwner: ownerRows, topSelfDifferences: frames, eovInclusive: eov };
  }
  results.profile = { amount, summary };
}

const PARTS = ["throughput", "cpu", "loop", "startup", "profile"];

/** Runs the chosen parts; answers what they measured (also printed as tables). */
export async function validatorComparison(options: ValidatorBenchOptions): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const wants = (part: string) => options.parts === undefined || options.parts.has(part);
  // Side by side with the baselines, a few rounds of some seconds each.
  if (wants("throughput")) await throughput(options, results, { key: "throughput", baselines: true, rounds: options.rounds ?? (options.quick ? 2 : 4), duration: options.duration ?? (options.quick ? 2 : 3) });
  // The two variants alone, many short rounds: on a shared, drifting machine the per-round
  // ratio of two targets measured a second apart is the steadiest figure there is.
  if (wants("cpu")) await throughput(options, results, { key: "cpu", baselines: false, rounds: options.quick ? 6 : 12, duration: 1 });
  if (wants("loop")) await loop(options, results);
  if (wants("startup")) await startup(options, results);
  if (wants("profile")) await profile(options, results);
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argv = process.argv.slice(2);
  const valueOf = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const known = new Set(["--quick", "--rounds", "--duration", "--connections", "--parts"]);
  for (const [i, arg] of argv.entries()) if (arg.startsWith("--") && !known.has(arg) && !known.has(argv[i - 1] ?? "")) throw new Error(`unknown option ${arg}`);
  const numberOf = (flag: string): number | undefined => {
    const text = valueOf(flag);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!(value > 0)) throw new Error(`${flag} must be a positive number`);
    return value;
  };
  const started = performance.now();
  const connections = valueOf("--connections")?.split(",").map(Number);
  if (connections?.some((n) => !(Number.isInteger(n) && n > 0))) throw new Error("--connections must list positive whole numbers, e.g. 1,20,50");
  const parts = valueOf("--parts");
  const unknownPart = parts?.split(",").find((part) => !PARTS.includes(part));
  if (unknownPart !== undefined) throw new Error(`unknown part ${unknownPart}; the parts are ${PARTS.join(", ")}`);
  const results = await validatorComparison({
    quick: argv.includes("--quick"),
    rounds: numberOf("--rounds"),
    duration: numberOf("--duration"),
    ...(connections && { connections }),
    ...(parts !== undefined && { parts: new Set(parts.split(",")) }),
    out: (text) => process.stdout.write(`${text}\n`),
  });
  const file = writeResults("validator", { startedAt: new Date().toISOString(), machine: machine(), ...results, totalSeconds: (performance.now() - started) / 1000 });
  process.stdout.write(`\nDone in ${Math.round((performance.now() - started) / 1000)} s; results in ${file}\n`);
}
