// `npm run bench:load`: a bounded load test of the sandbox, on loopback only.
//
//   npm run bench:load                       50 connections of signed mixed traffic for 60 s
//   npm run bench:load -- --duration 10      shorter
//   npm run bench:load -- --connections 20
//
// Each connection repeats: createOrder, getOrder (of the order it just created), createCashierSession
// (a new outTradeNo each time), queryPayment (of that trade), listStores, every request signed
// afresh. Afterwards every order and trade whose creation was acknowledged (2xx, code 0, an id)
// is read back; the test fails (exit 1) on any 5xx, any lost order or trade, or any error.
// Memory (resident set of the sandbox process) is sampled every few seconds.
import type { AutocannonRequest } from "autocannon";
import { signRequestHeaders } from "../../src/signing/index.js";
import { runLoad } from "./lib/load.js";
import { CREDENTIALS, startSandboxProcess } from "./lib/processes.js";
import { machine, percentileOf, table, writeResults, type Cell } from "./lib/report.js";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!(value > 0)) throw new Error(`--${name} needs a positive number`);
  return value;
}
if (process.argv.includes("--help")) {
  process.stdout.write("Usage: npm run bench:load -- [--duration SECONDS (60)] [--connections N (50)] [--sample SECONDS (5)]\n");
  process.exit(0);
}
const durationSec = option("duration", 60);
const connections = option("connections", 50);
const sampleSec = option("sample", Math.min(5, Math.max(1, durationSec / 6)));
const out = (text: string) => process.stdout.write(`${text}\n`);

const BASE = "/open-api/v1";
const ORDER_BODY = JSON.stringify({ merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }] });
const runId = Date.now().toString(36);
let outTradeCounter = 0;

const orders: string[] = [];
const trades: string[] = [];
const byOperation = new Map<string, { requests: number; good: number; statuses: Map<number, number>; latencies: number[] }>();

function record(name: string, status: number, good: boolean): void {
  let entry = byOperation.get(name);
  if (!entry) {
    entry = { requests: 0, good: 0, statuses: new Map(), latencies: [] };
    byOperation.set(name, entry);
  }
  entry.requests++;
  if (good) entry.good++;
  entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
}

const signed = (req: AutocannonRequest, body?: string): AutocannonRequest => ({
  ...req,
  ...(body !== undefined && { body }),
  headers: { ...(body !== undefined && { "content-type": "application/json" }), ...signRequestHeaders({ ...CREDENTIALS, ...(body !== undefined && { body }) }) },
});

const ok = (status: number, body: string) => status >= 200 && status < 300 && body.startsWith('{"code":0,');

/** One connection's cycle of mixed traffic. */
const cycle: AutocannonRequest[] = [
  {
    method: "POST",
    path: `${BASE}/orders`,
    setupRequest: (req) => signed(req, ORDER_BODY),
    onResponse: (status, body, context) => {
      const id = ok(status, body) ? /"data":([0-9]+)\}$/.exec(body)?.[1] : undefined;
      record("createOrder", status, id !== undefined);
      if (id !== undefined) {
        orders.push(id);
        context.orderId = id;
      }
    },
  },
  {
    method: "GET",
    setupRequest: (req, context) => signed({ ...req, path: context.orderId ? `${BASE}/orders/${String(context.orderId)}?merchantId=10001` : `${BASE}/stores?merchantId=10001` }),
    onResponse: (status, body) => record("getOrder", status, ok(status, body)),
  },
  {
    method: "POST",
    path: `${BASE}/payment/cashier/create`,
    setupRequest: (req) =>
      signed(req, JSON.stringify({ merchantId: 10001, outTradeNo: `L-${runId}-${++outTradeCounter}`, totalAmount: 4250, subject: "Load test", notifyUrl: "https://app.example.com/mop/notify" })),
    onResponse: (status, body, context) => {
      const tradeNo = ok(status, body) ? /"tradeNo":"([0-9]+)"/.exec(body)?.[1] : undefined;
      record("createCashierSession", status, tradeNo !== undefined);
      if (tradeNo !== undefined) {
        trades.push(tradeNo);
        context.tradeNo = tradeNo;
      }
    },
  },
  {
    method: "GET",
    setupRequest: (req, context) => signed({ ...req, path: context.tradeNo ? `${BASE}/payment/query?tradeNo=${String(context.tradeNo)}` : `${BASE}/stores?merchantId=10001` }),
    onResponse: (status, body) => record("queryPayment", status, ok(status, body)),
  },
  {
    method: "GET",
    path: `${BASE}/stores?merchantId=10001&pageNo=1&pageSize=10`,
    setupRequest: (req) => signed(req),
    onResponse: (status, body) => record("listStores", status, ok(status, body)),
  },
];

/** Reads every id back (getOrder / queryPayment) at 20 connections; answers the ids not found. */
async function readBack(origin: string, ids: string[], path: (id: string) => string, idIn: RegExp): Promise<{ missing: string[]; statuses: Record<string, number> }> {
  if (ids.length === 0) return { missing: [], statuses: {} };
  const seen = new Set<string>();
  let next = 0;
  const result = await runLoad({
    origin,
    basePath: BASE,
    connections: Math.min(20, ids.length),
    amount: ids.length,
    requests: [
      {
        method: "GET",
        setupRequest: (req) => signed({ ...req, path: path(ids[next++ % ids.length] as string) }),
        onResponse: (status, body) => {
          const id = status === 200 ? idIn.exec(body)?.[1] : undefined;
          if (id !== undefined) seen.add(id);
        },
      },
    ],
  });
  return { missing: ids.filter((id) => !seen.has(id)), statuses: result.statusCodes };
}

out(`Load test: ${connections} connections of signed mixed traffic for ${durationSec} s against \`mop sandbox\` (${JSON.stringify(machine())})`);
const server = await startSandboxProcess();
const memory: { t: number; rssMiB: number; orders: number; trades: number }[] = [];
const started = performance.now();
memory.push({ t: 0, rssMiB: server.rssMiB(), orders: 0, trades: 0 });
const sampler = setInterval(() => memory.push({ t: (performance.now() - started) / 1000, rssMiB: server.rssMiB(), orders: orders.length, trades: trades.length }), sampleSec * 1000);
let failed = false;
try {
  const load = await runLoad({ origin: server.origin, basePath: BASE, connections, durationSec, requests: cycle, verify: (body) => body.startsWith('{"code":0,') });
  clearInterval(sampler);
  memory.push({ t: (performance.now() - started) / 1000, rssMiB: server.rssMiB(), orders: orders.length, trades: trades.length });

  const rows: Cell[][] = [...byOperation].map(([name, entry]) => [
    name,
    entry.requests,
    entry.good,
    [...entry.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0),
    [...entry.statuses].map(([status, n]) => `${status}:${n}`).join(" "),
  ]);
  out(table("Requests by operation", ["operation", "answers", "good", "5xx", "statuses"], rows));
  out(
    table(
      "Overall",
      ["req/s (good)", "answers", "p50 ms", "p90 ms", "p99 ms", "max ms", "non-2xx", "5xx", "errors", "timeouts"],
      [[load.rps, load.requests, load.latencyMs.p50, load.latencyMs.p90, load.latencyMs.p99, load.latencyMs.max, load.non2xx, load.status5xx, load.errors, load.timeouts]],
    ),
  );
  const first = memory[0]?.rssMiB ?? Number.NaN;
  out(
    table(
      "Resident set of the sandbox (it keeps every order and trade until reset; nonces for 301 s)",
      ["t s", "RSS MiB", "orders", "trades", "KiB per record since start"],
      memory.map((m) => [Math.round(m.t), m.rssMiB, m.orders, m.trades, m.orders + m.trades > 0 ? ((m.rssMiB - first) * 1024) / (m.orders + m.trades) : null]),
    ),
  );

  out(`\nReading back ${orders.length.toLocaleString("en-US")} orders and ${trades.length.toLocaleString("en-US")} trades…`);
  const lostOrders = await readBack(server.origin, orders, (id) => `${BASE}/orders/${id}?merchantId=10001`, /"data":\{"id":([0-9]+),/);
  const lostTrades = await readBack(server.origin, trades, (tradeNo) => `${BASE}/payment/query?tradeNo=${tradeNo}`, /"tradeNo":"([0-9]+)"/);
  const duplicates = orders.length - new Set(orders).size + (trades.length - new Set(trades).size);
  out(table("Read-back", ["kind", "acknowledged", "read back", "lost", "statuses"], [
    ["orders", orders.length, orders.length - lostOrders.missing.length, lostOrders.missing.length, JSON.stringify(lostOrders.statuses)],
    ["trades", trades.length, trades.length - lostTrades.missing.length, lostTrades.missing.length, JSON.stringify(lostTrades.statuses)],
  ]));

  const problems: string[] = [];
  if (load.status5xx > 0) problems.push(`${load.status5xx} answers were 5xx`);
  if (load.errors + load.timeouts > 0) problems.push(`${load.errors} connection errors, ${load.timeouts} timeouts`);
  if (load.non2xx > 0) problems.push(`${load.non2xx} answers were not 2xx`);
  if (load.mismatches > 0) problems.push(`${load.mismatches} 2xx answers were not the success envelope`);
  if (lostOrders.missing.length > 0) problems.push(`${lostOrders.missing.length} acknowledged orders could not be read back (e.g. ${lostOrders.missing.slice(0, 3).join(", ")})`);
  if (lostTrades.missing.length > 0) problems.push(`${lostTrades.missing.length} acknowledged trades could not be read back (e.g. ${lostTrades.missing.slice(0, 3).join(", ")})`);
  if (duplicates > 0) problems.push(`${duplicates} ids were handed out twice`);
  if (orders.length === 0 || trades.length === 0) problems.push("nothing was created");
  const rss = memory.map((m) => m.rssMiB);
  const file = writeResults("load", {
    machine: machine(),
    connections,
    durationSec,
    load,
    byOperation: Object.fromEntries([...byOperation].map(([name, entry]) => [name, { requests: entry.requests, good: entry.good, statuses: Object.fromEntries(entry.statuses) }])),
    memory,
    rssP99MiB: percentileOf(rss, 99),
    readBack: { orders: orders.length, lostOrders: lostOrders.missing.length, trades: trades.length, lostTrades: lostTrades.missing.length },
    problems,
  });
  if (problems.length > 0) {
    failed = true;
    out(`\nFAILED: ${problems.join("; ")}`);
  } else {
    out(`\nPASSED: zero 5xx, zero errors, zero lost orders or trades; p99 ${load.latencyMs.p99.toFixed(2)} ms at ${Math.round(load.rps)} good answers/s.`);
  }
  out(`Results in ${file}`);
} finally {
  clearInterval(sampler);
  await server.stop();
}
process.exitCode = failed ? 1 : 0;
