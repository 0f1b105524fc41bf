// The shared (Redis) nonce store's cost next to the memory store, on loopback: one useOnce
// call alone, and a whole signed listStores against an in-process sandbox, sequentially, so
// the p50 difference is what one request pays for replay protection shared across instances.
//
//   npm run bench:nonce-store [-- --quick]      (needs Debian's redis-server)
import { createSandbox } from "../../src/sandbox/index.js";
import { createMemoryNonceStore, createRedisNonceStore, signRequestHeaders, type NonceStore } from "../../src/signing/index.js";
import { redisServerMissing, startRedisServer } from "../lib/redis-server.js";
import { machine, percentileOf, table, writeResults } from "./lib/report.js";

const quick = process.argv.includes("--quick");
const STORE_CALLS = quick ? 2_000 : 20_000;
const REQUESTS = quick ? 500 : 4_000;
const out = (text: string) => process.stdout.write(`${text}\n`);

async function timeStore(store: NonceStore, label: string): Promise<number[]> {
  const now = Date.now();
  const times: number[] = [];
  for (let i = 0; i < STORE_CALLS + 200; i++) {
    const started = performance.now();
    const use = await store.useOnce("bench-app", `${label}-${i}-nonce`, now + 301_000, now);
    if (use !== "fresh") throw new Error(`${label}: nonce ${i} answered ${use}`);
    if (i >= 200) times.push(performance.now() - started);
  }
  return times;
}

async function timeRequests(nonceStore: NonceStore): Promise<number[]> {
  const sandbox = createSandbox({ nonceStore });
  const { url, close } = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  await sandbox.ready();
  const times: number[] = [];
  try {
    for (let i = 0; i < REQUESTS + 100; i++) {
      const headers = signRequestHeaders({ appKey: "demo-app-key", appSecret: "demo-app-secret", body: "" });
      const started = performance.now();
      const response = await fetch(`${url}/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10`, { headers });
      const text = await response.text();
      if (response.status !== 200 || !text.startsWith('{"code":0')) throw new Error(`listStores answered ${response.status} ${text.slice(0, 200)}`);
      if (i >= 100) times.push(performance.now() - started);
    }
  } finally {
    await close();
  }
  return times;
}

const missing = redisServerMissing();
if (missing) {
  out(`nonce-store bench skipped: ${missing}`);
  process.exit(0);
}
const redis = await startRedisServer();
try {
  const redisStore = await createRedisNonceStore({ url: redis.url });
  await redisStore.ready();
  const memoryCalls = await timeStore(createMemoryNonceStore(), "memory");
  const redisCalls = await timeStore(redisStore, "redis");
  // Alternate the two so the machine's drift hits both alike.
  const memoryRequests: number[] = [];
  const redisRequests: number[] = [];
  for (let round = 0; round < 2; round++) {
    memoryRequests.push(...(await timeRequests(createMemoryNonceStore())));
    redisRequests.push(...(await timeRequests(redisStore)));
  }
  await redisStore.close();
  const p = (values: number[], q: number) => Math.round(percentileOf(values, q) * 1000) / 1000;
  const rows = [
    ["useOnce, memory", p(memoryCalls, 50), p(memoryCalls, 99)],
    ["useOnce, Redis", p(redisCalls, 50), p(redisCalls, 99)],
    ["signed listStores, memory store", p(memoryRequests, 50), p(memoryRequests, 99)],
    ["signed listStores, Redis store", p(redisRequests, 50), p(redisRequests, 99)],
  ];
  const added = p(redisRequests, 50) - p(memoryRequests, 50);
  out(table(`Nonce store (ms, ${quick ? "quick" : "full"} run, sequential on loopback)`, ["what", "p50", "p99"], rows));
  out(`\nRedis adds ${added.toFixed(3)} ms at p50 per signed request (target ≤ 0.3 ms).`);
  const file = writeResults("nonce-store", { machine: machine(), quick, rows, addedP50Ms: added });
  out(`Results: ${file}`);
} finally {
  await redis.close();
}
