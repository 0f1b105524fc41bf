// `npm run bench`: measured performance of the sandbox, the client, signing and the checker,
// side by side with bare Express and Stoplight Prism, on loopback only. Every section prints a
// table; everything is also written to bench-results/bench-<time>.json (and bench-latest.json).
//
//   npm run bench                      full run (some 4 minutes on 2 cores)
//   npm run bench -- --quick           a fast pass (about a minute)
//   npm run bench -- --only throughput,startup   selected sections
//   MOP_BENCH_SANDBOX_ROOT=/path/to/other/build npm run bench -- --only throughput,startup,memory
//                                      measures another build's sandbox (before/after a change)
//
// Method (docs/performance.md): servers run in their own processes, the load generator
// (autocannon) here; every request is signed afresh inside the measured loop and every answer
// is checked (2xx and the success envelope); targets alternate round by round so that drift of
// the machine hits all of them alike, and each throughput figure is the median of its rounds.
import { availableParallelism, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createSignedClient } from "../../src/client/index.js";
import { parseJsonLossless } from "../../src/json/index.js";
import { runConformance } from "../../src/conformance/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { createMemoryNonceStore, signRequestHeaders, verifySignedRequest } from "../../src/signing/index.js";
import { runLoad, signedRequest, type LoadRequest, type LoadResult } from "./lib/load.js";
import { machine, median, parseFlags, percentileOf, runtimeWarning, table, writeResults, type Cell } from "./lib/report.js";
import { proxyLatency } from "./proxy.js";
import { validatorComparison } from "./validator.js";
import { CREDENTIALS, startSandboxProcess, startStubProcess, startTarget, TARGETS, type ServerProcess, type TargetName } from "./lib/processes.js";

const flags = parseFlags(process.argv.slice(2));
const quick = flags.quick;
const wants = (section: string) => flags.only === undefined || flags.only.has(section);
const results: Record<string, unknown> = { startedAt: new Date().toISOString(), quick, machine: machine(), sandboxBuild: process.env.MOP_BENCH_SANDBOX_ROOT || "this package" };
const out = (text: string) => process.stdout.write(`${text}\n`);

const ORDER_BODY = JSON.stringify({
  merchantId: 10001,
  userId: 880000000001,
  orderType: 1,
  items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }],
});

const OPERATIONS: LoadRequest[] = [
  { name: "listStores", method: "GET", path: "/stores?merchantId=10001&pageNo=1&pageSize=10" },
  { name: "createOrder", method: "POST", path: "/orders", body: ORDER_BODY },
];
const CONNECTIONS = [1, 20, 50];

/** A throughput goal: target ÷ versus, median of per-round ratios, at least `atLeast`. */
interface RatioGoal {
  target: TargetName;
  versus: TargetName;
  atLeast: number;
  goal: string;
}

const GOALS: RatioGoal[] = [
  { target: "sandbox", versus: "prism", atLeast: 2.0, goal: "sandbox ≥ 2.0 × Prism's silent mock" },
  { target: "sandbox-log", versus: "prism", atLeast: 1.8, goal: "sandbox with its request log ≥ 1.8 × Prism" },
  { target: "sandbox", versus: "bare-express", atLeast: 0.8, goal: "sandbox ≥ 0.8 × bare Express (same handlers)" },
  { target: "kit", versus: "kit-bare", atLeast: 0.8, goal: "server kit, constant handlers ≥ 0.8 × its bare twin" },
];

/** Every goal a section measured, for the summary at the end. */
interface GoalResult {
  goal: string;
  scope: string;
  result: string;
  met: boolean;
}
const summary: GoalResult[] = [];

// ---------------------------------------------------------------- throughput

interface TargetFigures {
  target: TargetName;
  rounds: number[];
  rps: number;
  p50: number;
  p99: number;
  good: number;
  non2xx: number;
  status5xx: number;
  mismatches: number;
  errors: number;
  serverCpuPercent: number;
  /** Server CPU time per good answer: steadier than req/s when other work shares the machine. */
  serverCpuUsPerAnswer: number;
  generatorCpuPercent: number;
}

const labelOf = (name: TargetName) => TARGETS[name]?.label ?? name;

async function throughput(): Promise<void> {
  const duration = flags.duration ?? (quick ? 2 : 3);
  const rounds = flags.rounds ?? (quick ? 2 : 4);
  const warmup = quick ? 2 : 3;
  const targetNames = Object.keys(TARGETS) as TargetName[];
  const goals = GOALS.filter((goal) => targetNames.includes(goal.target) && targetNames.includes(goal.versus));
  out(`\n== Throughput: ${targetNames.map(labelOf).join(", ")}; ${rounds} round(s) of ${duration} s per target, after a ${warmup} s warm-up at 50 connections; fresh servers per operation and connection count`);
  const rows: Cell[][] = [];
  const ratioRows: Cell[][] = [];
  const ratios: Record<string, unknown>[] = [];
  const figures: Record<string, Record<string, TargetFigures[]>> = {};
  for (const operation of OPERATIONS) {
    figures[operation.name] = {};
    for (const connections of CONNECTIONS) {
      const servers: ServerProcess[] = [];
      try {
        for (const target of targetNames) servers.push(await startTarget(target));
        // JIT warm-up, and each operation's validators compiled, before anything counts.
        for (const server of servers) await runLoad({ origin: server.origin, basePath: server.basePath, connections: 50, durationSec: warmup, requests: [signedRequest(operation, server.basePath)] });
        const perTarget = new Map<TargetName, { runs: LoadResult[]; serverCpu: number; generatorCpu: number; wall: number }>();
        const roundRatios = goals.map(() => [] as number[]);
        for (let round = 0; round < rounds; round++) {
          // The order rotates from round to round, so no target always runs first or last.
          const order = servers.map((_, i) => servers[(i + round) % servers.length] as ServerProcess);
          const rpsThisRound = new Map<string, number>();
          for (const server of order) {
            const cpu0 = server.cpuSeconds();
            const gen0 = process.cpuUsage();
            const t0 = performance.now();
            const run = await runLoad({ origin: server.origin, basePath: server.basePath, connections, durationSec: duration, requests: [signedRequest(operation, server.basePath)] });
            const wall = (performance.now() - t0) / 1000;
            const gen = process.cpuUsage(gen0);
            const entry = perTarget.get(server.name as TargetName) ?? { runs: [], serverCpu: 0, generatorCpu: 0, wall: 0 };
            entry.runs.push(run);
            entry.serverCpu += server.cpuSeconds() - cpu0;
            entry.generatorCpu += (gen.user + gen.system) / 1e6;
            entry.wall += wall;
            perTarget.set(server.name as TargetName, entry);
            rpsThisRound.set(server.name, run.rps);
          }
          goals.forEach((goal, i) => roundRatios[i]?.push((rpsThisRound.get(goal.target) ?? Number.NaN) / (rpsThisRound.get(goal.versus) ?? Number.NaN)));
        }
        const list: TargetFigures[] = [];
        for (const target of targetNames) {
          const entry = perTarget.get(target);
          if (!entry) continue;
          const sum = (pick: (run: LoadResult) => number) => entry.runs.reduce((total, run) => total + pick(run), 0);
          list.push({
            target,
            rounds: entry.runs.map((run) => Math.round(run.rps)),
            rps: median(entry.runs.map((run) => run.rps)),
            p50: median(entry.runs.map((run) => run.latencyMs.p50)),
            p99: median(entry.runs.map((run) => run.latencyMs.p99)),
            good: sum((run) => run.good),
            non2xx: sum((run) => run.non2xx),
            status5xx: sum((run) => run.status5xx),
            mismatches: sum((run) => run.mismatches),
            errors: sum((run) => run.errors + run.timeouts),
            serverCpuPercent: (100 * entry.serverCpu) / entry.wall,
            serverCpuUsPerAnswer: (1e6 * entry.serverCpu) / Math.max(1, sum((run) => run.good)),
            generatorCpuPercent: (100 * entry.generatorCpu) / entry.wall,
          });
        }
        (figures[operation.name] as Record<string, TargetFigures[]>)[String(connections)] = list;
        for (const f of list) {
          rows.push([operation.name, connections, labelOf(f.target), f.rps, f.p50, f.p99, f.good, f.non2xx, f.mismatches, f.errors, f.serverCpuPercent, f.serverCpuUsPerAnswer, f.generatorCpuPercent]);
        }
        // Ratios of the targets measured back to back in one round, then the median over rounds:
        // drift of the machine between rounds cancels out.
        goals.forEach((goal, i) => {
          const perRound = roundRatios[i] ?? [];
          const ratio = median(perRound);
          const failed = list.filter((f) => f.target === goal.target || f.target === goal.versus).reduce((n, f) => n + f.non2xx + f.mismatches + f.errors, 0);
          const met = ratio >= goal.atLeast && failed === 0;
          ratioRows.push([operation.name, connections, `${labelOf(goal.target)} ÷ ${labelOf(goal.versus)}`, ratio, goal.atLeast, met ? "met" : "NOT MET", perRound.map((r) => r.toFixed(2)).join(" ")]);
          ratios.push({ operation: operation.name, connections, target: goal.target, versus: goal.versus, ratio, atLeast: goal.atLeast, met, perRound });
          summary.push({ goal: goal.goal, scope: `${operation.name}, ${connections} conn${connections === 1 ? "" : "s"}`, result: `${ratio.toFixed(2)} ×${failed > 0 ? ` (${failed} failed answers)` : ""}`, met });
        });
        out(`  ${operation.name} at ${connections} connection(s): ${list.map((f) => `${labelOf(f.target)} ${Math.round(f.rps)}/s`).join(", ")}`);
      } finally {
        for (const server of servers) await server.stop();
      }
    }
  }
  out(
    table(
      "Throughput (good answers per second: 2xx with the success envelope; latency in ms, median of rounds)",
      ["operation", "conns", "target", "req/s", "p50 ms", "p99 ms", "good", "non-2xx", "bad body", "errors", "server CPU %", "server CPU µs/answer", "load gen CPU %"],
      rows,
    ),
  );
  out(table("Ratios (median of per-round ratios)", ["operation", "conns", "ratio", "median", "goal ≥", "goal", "per round"], ratioRows));
  results.throughput = { durationSec: duration, rounds, warmupSec: warmup, connections: CONNECTIONS, figures, ratios };
}

// ---------------------------------------------------------------- client overhead

async function clientOverhead(): Promise<void> {
  const calls = quick ? 1000 : 4000;
  const block = 250;
  out(`\n== Client overhead: ${calls} sequential listStores calls each way, alternating blocks of ${block}`);
  const rows: Cell[][] = [];
  const data: Record<string, unknown> = {};
  for (const kind of ["sandbox", "stub"] as const) {
    const server = kind === "sandbox" ? await startSandboxProcess() : await startStubProcess();
    try {
      const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, ...CREDENTIALS });
      const url = `${server.origin}/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10`;
      const viaClient = async () => {
        const page = await client.call("listStores", { params: { query: { merchantId: 10001, pageNo: 1, pageSize: 10 } } });
        if (page.total < 1) throw new Error("listStores answered no stores");
      };
      const viaFetch = async () => {
        const response = await fetch(url, { headers: signRequestHeaders({ ...CREDENTIALS }) });
        // The exact parse any int64-safe caller needs (ids beyond 2^53 stay exact).
        const body = parseJsonLossless(await response.text()) as { code?: number };
        if (body.code !== 0) throw new Error(`plain fetch answered ${JSON.stringify(body)}`);
      };
      for (let i = 0; i < 300; i++) {
        await viaClient();
        await viaFetch();
      }
      const timings = { client: [] as number[], fetch: [] as number[] };
      for (let done = 0; done < calls; done += block) {
        for (const [name, fn] of [["client", viaClient], ["fetch", viaFetch]] as const) {
          const t0 = performance.now();
          for (let i = 0; i < block; i++) await fn();
          timings[name].push(((performance.now() - t0) * 1000) / block);
        }
      }
      const clientUs = median(timings.client);
      const fetchUs = median(timings.fetch);
      const overhead = clientUs / fetchUs - 1;
      const where = kind === "sandbox" ? "the sandbox" : "a canned-answer stub";
      rows.push([where, clientUs, fetchUs, clientUs - fetchUs, clientUs / fetchUs, `${(overhead * 100).toFixed(1)} %`]);
      summary.push({ goal: "client ≤ 20 % over fetch + signing + exact JSON parse", scope: `listStores against ${where}`, result: `${overhead >= 0 ? "+" : ""}${(overhead * 100).toFixed(1)} % (${Math.round(clientUs)} vs ${Math.round(fetchUs)} µs)`, met: overhead <= 0.2 });
      data[kind] = { clientUsPerCall: clientUs, fetchUsPerCall: fetchUs, ratio: clientUs / fetchUs, blocks: timings };
    } finally {
      await server.stop();
    }
  }
  out(table("Signed typed client call() vs plain fetch (+ signRequestHeaders + exact JSON parse), µs per call (median of blocks)", ["server", "client µs", "fetch µs", "difference µs", "ratio", "overhead"], rows));
  results.client = { calls, block, ...data };
}

// ---------------------------------------------------------------- signing

async function signing(): Promise<void> {
  const small = ORDER_BODY;
  const large = JSON.stringify({ blob: "x".repeat(64 * 1024 - 12) });
  const rows: Cell[][] = [];
  const data: Record<string, unknown> = {};
  out(`\n== Signing and verification (in process; a ${Buffer.byteLength(small)} B and a ${Buffer.byteLength(large)} B body)`);
  for (const [label, body, n] of [["small", small, quick ? 5000 : 20000], ["64 KiB", large, quick ? 500 : 3000]] as const) {
    for (let i = 0; i < 200; i++) signRequestHeaders({ ...CREDENTIALS, body });
    let t0 = performance.now();
    const signed: ReturnType<typeof signRequestHeaders>[] = [];
    for (let i = 0; i < n; i++) signed.push(signRequestHeaders({ ...CREDENTIALS, body }));
    const signUs = ((performance.now() - t0) * 1000) / n;
    const verifyWith = async (secrets: readonly string[]) => {
      const nonceStore = createMemoryNonceStore({ capacity: n + 10 });
      let ok = 0;
      const t = performance.now();
      for (const headers of signed) if ((await verifySignedRequest({ headers, body, secretsFor: () => secrets, nonceStore })).ok) ok++;
      if (ok !== n) throw new Error(`only ${ok} of ${n} signatures verified`);
      return ((performance.now() - t) * 1000) / n;
    };
    await verifyWith([CREDENTIALS.appSecret]); // warm-up (every nonce is fresh again in a new store)
    t0 = performance.now();
    const verifyUs = await verifyWith([CREDENTIALS.appSecret]);
    const verifyRotationUs = await verifyWith([CREDENTIALS.appSecret, "demo-app-secret-next"]);
    rows.push([label, Buffer.byteLength(body), signUs, verifyUs, verifyRotationUs, Math.round(1e6 / signUs), Math.round(1e6 / verifyUs)]);
    data[label] = { bytes: Buffer.byteLength(body), iterations: n, signUs, verifyUs, verifyTwoSecretsUs: verifyRotationUs };
  }
  out(table("Per call, µs (verify: headers, window, HMAC in constant time, nonce; the demo app has two secrets during its rotation)", ["body", "bytes", "sign µs", "verify µs", "verify, 2 secrets µs", "signs/s", "verifies/s"], rows));
  results.signing = data;
}

// ---------------------------------------------------------------- checker

async function checker(): Promise<void> {
  const runs = quick ? 1 : 3;
  out(`\n== Checker: runConformance against an in-process sandbox (as test/conformance/against-sandbox.test.ts), ${runs} run(s)`);
  const sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [50, 50, 100, 100, 200] });
  const listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  const rows: Cell[][] = [];
  const walls: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const t0 = performance.now();
      const report = await runConformance({
        baseUrl: listening.url,
        ...CREDENTIALS,
        merchantIds: ["10001"],
        foreignMerchantId: "10004",
        apiKey: "demo-api-key",
        controlUrl: `${listening.url}/sandbox`,
        callbackWaitMs: 3000,
        concurrency: 6,
      });
      const wall = performance.now() - t0;
      walls.push(wall);
      rows.push([run + 1, wall, report.results.length, report.counts.passed, report.counts.failed, report.results.length - report.counts.passed - report.counts.failed]);
    }
  } finally {
    await sandbox.close();
  }
  out(table("Full conformance run (callbacks included)", ["run", "wall ms", "checks", "passed", "failed", "other"], rows));
  results.checker = { runs: rows.map(([run, wall, checks, passed, failed]) => ({ run, wallMs: wall, checks, passed, failed })), medianWallMs: median(walls) };
}

// ---------------------------------------------------------------- start-up

async function startup(): Promise<void> {
  const runs = quick ? 3 : 7;
  out(`\n== Start-up: \`node bin/mop.js sandbox --port 0 --quiet\`, ${runs} runs; time from spawn to the printed URL and to the first answered signed request`);
  const banner: number[] = [];
  const first: number[] = [];
  for (let run = 0; run < runs; run++) {
    const server = await startSandboxProcess();
    banner.push(server.bannerMs);
    first.push(server.startMs);
    await server.stop();
  }
  const rows: Cell[][] = [
    ["URL printed", median(banner), Math.min(...banner), Math.max(...banner)],
    ["first signed 200", median(first), Math.min(...first), Math.max(...first)],
  ];
  out(table("ms after spawn (target: first answer < 500 ms)", ["milestone", "median", "min", "max"], rows));
  summary.push({ goal: "start-up: first signed answer < 500 ms", scope: "mop sandbox --quiet, median", result: `${Math.round(median(first))} ms`, met: median(first) < 500 });
  results.startup = { runs, bannerMs: banner, firstAnswerMs: first, medianBannerMs: median(banner), medianFirstAnswerMs: median(first) };
}

// ---------------------------------------------------------------- memory

async function memory(): Promise<void> {
  const total = quick ? 40_000 : 100_000;
  const step = total / 4;
  out(`\n== Memory: resident set of \`mop sandbox\` while it answers ${total.toLocaleString("en-US")} signed listStores requests (50 connections)`);
  const server = await startSandboxProcess();
  const rows: Cell[][] = [];
  const samples: { requests: number; rssMiB: number }[] = [];
  try {
    samples.push({ requests: 0, rssMiB: server.rssMiB() });
    rows.push([0, server.rssMiB(), 0, 0]);
    let sent = 0;
    while (sent < total) {
      const run = await runLoad({ origin: server.origin, basePath: server.basePath, connections: 50, amount: step, requests: [signedRequest(OPERATIONS[0] as LoadRequest, server.basePath)] });
      sent += step;
      const rss = server.rssMiB();
      samples.push({ requests: sent, rssMiB: rss });
      rows.push([sent, rss, run.good, run.non2xx + run.mismatches + run.errors]);
    }
  } finally {
    await server.stop();
  }
  out(table("Resident set after N requests (every nonce is kept 301 s: at most 1,000,000, about 90 MB; the request log is off with --quiet)", ["requests", "RSS MiB", "good in step", "bad in step"], rows));

  // The same traffic against a sandbox in this process, where a full garbage collection can be
  // forced: the live heap after it shows what is really kept (RSS also holds heap headroom).
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const sandbox = createSandbox();
  const listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  const heapRows: Cell[][] = [];
  const heap: { requests: number; heapMiB: number }[] = [];
  try {
    for (let sent = 0; ; sent += step) {
      if (sent > 0) await runLoad({ origin: listening.url, basePath: "/open-api/v1", connections: 20, amount: step, requests: [signedRequest(OPERATIONS[0] as LoadRequest, "/open-api/v1")] });
      gc();
      gc();
      const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
      heap.push({ requests: sent, heapMiB });
      const first = heap[0]?.heapMiB ?? heapMiB;
      heapRows.push([sent, heapMiB, sent > 0 ? ((heapMiB - first) * 2 ** 20) / sent : null]);
      if (sent >= total) break;
    }
  } finally {
    await sandbox.close();
  }
  out(table("Live heap after a full GC, in-process sandbox (this process's heap, load generator included)", ["requests", "heap MiB", "bytes kept per request"], heapRows));
  results.memory = { total, samples, p99RssMiB: percentileOf(samples.map((s) => s.rssMiB), 99), heapAfterGc: heap };
}

// ---------------------------------------------------------------- load

/**
 * A load test at full speed, answered and not refused: listStores and createOrder in turn on 50
 * connections for a full minute (--duration shortens it), every request signed afresh, against
 * `mop sandbox` with its quotas and nonce capacity lifted as docs/performance.md ("Load testing
 * against the sandbox") says. The goal: every answer 2xx with the success envelope.
 */
async function load(): Promise<void> {
  const durationSec = flags.duration ?? (quick ? 10 : 60);
  out(`\n== Load: listStores and createOrder in turn, 50 connections, ${durationSec} s at full speed against mop sandbox (quotas and nonce capacity lifted)`);
  const server = await startSandboxProcess();
  try {
    const run = await runLoad({ origin: server.origin, basePath: server.basePath, connections: 50, durationSec, requests: OPERATIONS.map((operation) => signedRequest(operation, server.basePath)) });
    const other = run.requests - run.good;
    out(table("Answers of the whole run", ["answers", "good (2xx, success envelope)", "not good", "5xx", "errors", "timeouts", "good/s", "p50 ms", "p99 ms"], [[run.requests, run.good, other, run.status5xx, run.errors, run.timeouts, Math.round(run.rps), run.latencyMs.p50, run.latencyMs.p99]]));
    out(`status codes: ${JSON.stringify(run.statusCodes)}`);
    results.load = run;
    summary.push({ goal: "a load test at full speed is answered, not refused", scope: `${durationSec} s, 50 conns, listStores + createOrder`, result: `${run.good} of ${run.requests} good${other > 0 ? ` (${other} not)` : ""}`, met: other === 0 && run.requests > 0 && durationSec >= 60 });
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------- run

const sections: [string, () => Promise<void>][] = [
  ["startup", startup],
  ["signing", signing],
  ["client", clientOverhead],
  ["checker", checker],
  ["throughput", throughput],
  ["memory", memory],
  ["load", load],
  [
    "proxy",
    async () => {
      const proxy = await proxyLatency({ quick, built: true, out });
      results.proxy = proxy;
      summary.push({ goal: `signing proxy adds ≤ ${proxy.targetMs} ms at p50`, scope: "listStores, one at a time", result: `${proxy.addedP50Ms.toFixed(2)} ms`, met: proxy.met });
    },
  ],
  // A study of a design choice rather than a figure to track, and some minutes long: only on request.
  ["validator", async () => void (flags.only?.has("validator") ? (results.validator = await validatorComparison({ quick, rounds: flags.rounds, duration: flags.duration, out })) : out("\n== validator: skipped (run it with --only validator)"))],
];
const started = performance.now();
out(`Benchmarks on ${JSON.stringify(machine())}${quick ? " (quick pass)" : ""}`);
const unsupportedRuntime = runtimeWarning();
if (unsupportedRuntime) out(`WARNING: ${unsupportedRuntime}`);
results.runtimeWarning = unsupportedRuntime ?? null;
for (const [name, run] of sections) if (wants(name)) await run();
results.totalSeconds = (performance.now() - started) / 1000;
results.summary = summary;
if (summary.length > 0) {
  out(table("Summary: the goals of this run", ["goal", "where", "result", "met"], summary.map((row) => [row.goal, row.scope, row.result, row.met ? "met" : "NOT MET"])));
  out(`${summary.filter((row) => row.met).length} of ${summary.length} met on Node.js ${process.version}; load average at the end ${loadavg().map((n) => n.toFixed(1)).join(" ")} on ${availableParallelism()} cores.`);
  if (unsupportedRuntime) out(`WARNING: ${unsupportedRuntime}`);
}
const file = writeResults("bench", results);
out(`\nDone in ${Math.round((performance.now() - started) / 1000)} s; results in ${file}`);
