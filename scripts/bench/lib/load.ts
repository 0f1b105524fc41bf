// Load with autocannon, every request freshly signed in the load generator (setupRequest runs
// before each request is written, so the HMAC, the nonce and the timestamp are computed per
// request, inside the measured loop), and every answer checked: a response counts as good only
// when it is 2xx AND its body is the success envelope ({"code":0,...}). Error answers are
// counted, never reported as throughput.
//
// Latency: autocannon's own histogram has 1 ms resolution, too coarse for sub-millisecond
// loopback answers, so each response time (ms, float) is also recorded here and percentiles
// are computed exactly from those samples.
import autocannon, { type AutocannonRequest } from "autocannon";
import { signRequestHeaders } from "../../../src/signing/index.js";
import { CREDENTIALS } from "./processes.js";

export interface LoadRequest {
  /** A short label for reports, e.g. "listStores". */
  name: string;
  method: "GET" | "POST";
  /** Path below the target's basePath, with its query, e.g. "/stores?merchantId=10001". */
  path: string;
  /** JSON text for a POST. */
  body?: string;
}

export interface LoadOptions {
  origin: string;
  basePath: string;
  connections: number;
  /** Seconds; ignored when amount is set. */
  durationSec?: number;
  /** Total requests. */
  amount?: number;
  /** Sign every request (default true). */
  sign?: boolean;
  /** Several requests are sent in turn on each connection; setupRequest may depend on earlier answers. */
  requests: AutocannonRequest[];
  /** When a 2xx answer is good (else it counts as a mismatch); default: the success envelope. */
  verify?: (body: string) => boolean;
}

export interface LoadResult {
  connections: number;
  durationSec: number;
  /** Good (2xx + success envelope) answers per second. */
  rps: number;
  requests: number;
  good: number;
  non2xx: number;
  status5xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  statusCodes: Record<string, number>;
}

export const isSuccessEnvelope = (body: string): boolean => body.startsWith('{"code":0,');

/** A request that is signed afresh each time it is sent (and points at the target's basePath). */
export function signedRequest(request: LoadRequest, basePath: string, sign = true): AutocannonRequest {
  const headers: Record<string, string> = request.body === undefined ? {} : { "content-type": "application/json" };
  const path = `${basePath}${request.path}`;
  return {
    method: request.method,
    path,
    headers,
    ...(request.body !== undefined && { body: request.body }),
    setupRequest: (req) => (sign ? { ...req, headers: { ...headers, ...signRequestHeaders({ ...CREDENTIALS, ...(request.body !== undefined && { body: request.body }) }) } } : req),
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const verify = options.verify ?? isSuccessEnvelope;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let good = 0;
  let mismatches = 0;
  const requests = options.requests.map((request): AutocannonRequest => ({
    ...request,
    onResponse: (status, body, context, headers) => {
      if (status >= 200 && status < 300) {
        if (verify(body)) good++;
        else mismatches++;
      }
      request.onResponse?.(status, body, context, headers);
    },
  }));
  const instance = autocannon({
    url: options.origin,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSec ?? 5 }),
    timeout: 10,
    requests,
    excludeErrorStats: false,
  });
  instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const started = performance.now();
  const result = await instance;
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const answered = result["2xx"] + result.non2xx;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats)) statusCodes[code] = n;
  const durationSec = options.amount !== undefined ? elapsed : result.duration || elapsed;
  return {
    connections: options.connections,
    durationSec,
    rps: good / durationSec,
    requests: answered,
    good,
    non2xx: result.non2xx,
    status5xx: result["5xx"],
    mismatches,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      mean: count > 0 ? sum / count : Number.NaN,
      max: sorted[sorted.length - 1] ?? Number.NaN,
    },
    statusCodes,
  };
}
