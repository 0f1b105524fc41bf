import { describe, expect, it } from "vitest";
import {
  ApiError,
  backoffDelay,
  createKeyedClient,
  createSignedClient,
  NetworkError,
  parseRetryAfter,
  UnexpectedResponseError,
  type RetryOptions,
} from "../../src/client/index.js";
import { createMemoryNonceStore, verifySignedRequest, type SignatureVerification } from "../../src/signing/index.js";
import { appKey, appSecret, recordingSleep } from "./support.js";

interface Seen {
  method: string;
  url: string;
  nonce: string | null;
  verification: SignatureVerification;
}

type Reply = Response | Error;

/** A fetch that answers from a script, one reply per attempt, and checks each signature. */
function scriptedFetch(replies: Array<() => Reply>) {
  const seen: Seen[] = [];
  const nonceStore = createMemoryNonceStore();
  const fetch = async (request: Request): Promise<Response> => {
    const body = new Uint8Array(await request.arrayBuffer());
    const verification = await verifySignedRequest({
      headers: request.headers,
      body,
      secretsFor: (key) => (key === appKey ? [appSecret] : undefined),
      nonceStore,
    });
    seen.push({ method: request.method, url: request.url, nonce: request.headers.get("x-nonce"), verification });
    const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!();
    if (reply instanceof Error) throw reply;
    return reply;
  };
  return { fetch, seen };
}

const json = (body: string, status = 200, headers: Record<string, string> = {}) => () =>
  new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
const text = (body: string, status: number, headers: Record<string, string> = {}) => () => new Response(body, { status, headers });
const refused = () => () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });

const storePage = '{"code":0,"msg":"success","data":{"list":[],"total":0,"pageNo":1,"pageSize":10}}';
const cashier = '{"code":0,"msg":"success","data":{"tradeNo":"1","cashierUrl":"https://pay.example.com/c/1"}}';
const orderBody = { merchantId: 1, userId: 2, orderType: 1 as const, items: [{ itemType: 1 as const, itemId: 3, itemName: "x", price: 1, quantity: 1 }] };
const cashierBody = { merchantId: 1, outTradeNo: "M-1", totalAmount: 100, subject: "Coffee", notifyUrl: "https://app.example.com/notify", expireMinutes: 30 };

function client(fetch: (request: Request) => Promise<Response>, retry: RetryOptions = {}) {
  return createSignedClient({ baseUrl: "http://127.0.0.1:9/open-api/v1", appKey, appSecret, fetch, retry });
}

describe("retries", () => {
  it("repeat a GET after a 503 until it succeeds, signing every attempt afresh", async () => {
    const { fetch, seen } = scriptedFetch([text("busy", 503), text("busy", 503), json(storePage)]);
    const { sleep } = recordingSleep();

    await expect(client(fetch, { sleep }).call("listStores")).resolves.toMatchObject({ total: 0 });

    expect(seen).toHaveLength(3);
    expect(seen.every((attempt) => attempt.verification.ok)).toBe(true);
    expect(new Set(seen.map((attempt) => attempt.nonce)).size).toBe(3);
  });

  it.each<[string, () => Reply]>([
    ["HTTP 429", text("slow down", 429)],
    ["HTTP 502", text("bad gateway", 502)],
    ["HTTP 504", text("gateway timeout", 504)],
    ["the rate-limited envelope 100006 (with HTTP 200)", json('{"code":100006,"msg":"too many requests","data":null}')],
    ["a refused connection", refused()],
  ])("repeat a GET after %s", async (_name, failure) => {
    const { fetch, seen } = scriptedFetch([failure, json(storePage)]);
    const { sleep } = recordingSleep();
    await expect(client(fetch, { sleep }).call("listStores")).resolves.toMatchObject({ total: 0 });
    expect(seen).toHaveLength(2);
  });

  it("repeat a GET whose attempt timed out", async () => {
    let attempts = 0;
    const fetch = async (request: Request): Promise<Response> => {
      attempts += 1;
      // The first attempt never answers (and ignores its abort signal); the second does.
      if (attempts === 1) return new Promise<Response>(() => void request);
      return json(storePage)();
    };
    const signed = createSignedClient({ baseUrl: "http://127.0.0.1:9", appKey, appSecret, fetch, timeoutMs: 20, retry: { sleep: recordingSleep().sleep } });
    await expect(signed.call("listStores")).resolves.toMatchObject({ total: 0 });
    expect(attempts).toBe(2);
  });

  it.each<[string, () => Reply]>([
    ["HTTP 500", text("oops", 500)],
    ["an ApiError such as 100009", json('{"code":100009,"msg":"pageSize must be <= 100","data":null}', 400)],
  ])("do not repeat a GET after %s", async (_name, failure) => {
    const { fetch, seen } = scriptedFetch([failure, json(storePage)]);
    await expect(client(fetch, { sleep: recordingSleep().sleep }).call("listStores")).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it("never repeat createOrder (a POST that is not idempotent)", async () => {
    const { fetch, seen } = scriptedFetch([text("busy", 503), json('{"code":0,"msg":"success","data":1}')]);
    await expect(client(fetch, { sleep: recordingSleep().sleep }).call("createOrder", { body: orderBody })).rejects.toBeInstanceOf(
      UnexpectedResponseError,
    );
    expect(seen).toHaveLength(1);
  });

  it("never repeat createOrder after a network error either", async () => {
    const { fetch, seen } = scriptedFetch([refused(), json('{"code":0,"msg":"success","data":1}')]);
    await expect(client(fetch, { sleep: recordingSleep().sleep }).call("createOrder", { body: orderBody })).rejects.toBeInstanceOf(NetworkError);
    expect(seen).toHaveLength(1);
  });

  it("repeat createCashierSession, which is idempotent on outTradeNo, with a fresh signature", async () => {
    const { fetch, seen } = scriptedFetch([text("busy", 503), refused(), json(cashier)]);
    const result = await client(fetch, { sleep: recordingSleep().sleep }).call("createCashierSession", { body: cashierBody });
    expect(result.tradeNo).toBe("1");
    expect(seen).toHaveLength(3);
    expect(seen.every((attempt) => attempt.verification.ok && attempt.method === "POST")).toBe(true);
    expect(new Set(seen.map((attempt) => attempt.nonce)).size).toBe(3);
  });

  it("apply to the raw typed methods as well", async () => {
    const { fetch, seen } = scriptedFetch([text("busy", 503), json(storePage)]);
    const { data } = await client(fetch, { sleep: recordingSleep().sleep }).GET("/stores", { params: { query: { pageSize: 5 } } });
    expect(data?.code === 0 ? data.data.total : data).toBe(0); // the 200 schema admits error envelopes too
    expect(seen).toHaveLength(2);
  });

  it("give up after `retries` repeats and report the last answer", async () => {
    const { fetch, seen } = scriptedFetch([text("still busy", 503)]);
    const error = await client(fetch, { retries: 3, sleep: recordingSleep().sleep }).call("listStores").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "UnexpectedResponseError", httpStatus: 503, bodySnippet: "still busy" });
    expect(seen).toHaveLength(4);
  });

  it("are off with retry: false", async () => {
    const { fetch, seen } = scriptedFetch([text("busy", 503), json(storePage)]);
    await expect(createSignedClient({ baseUrl: "http://127.0.0.1:9", appKey, appSecret, fetch, retry: false }).call("listStores")).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it("apply to the key-based client's GET and its rate-limited envelope 429", async () => {
    const { fetch, seen } = scriptedFetch([
      json('{"code":429,"message":"slow down","data":null}', 429),
      json('{"code":200,"message":"success","data":{"merchants":[],"pagination":{"page":1,"limit":20,"total":0,"pages":0}}}'),
    ]);
    const keyed = createKeyedClient({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", fetch, retry: { sleep: recordingSleep().sleep } });
    await expect(keyed.call("listAccountMerchants")).resolves.toMatchObject({ merchants: [] });
    expect(seen).toHaveLength(2);
  });
});

describe("back-off", () => {
  it("grows exponentially and is jittered within [0, min(maxDelayMs, baseDelayMs * 2^retry)]", async () => {
    const randoms = [0.5, 0.25, 0.999, 0];
    let i = 0;
    const { sleep, waits } = recordingSleep();
    const { fetch } = scriptedFetch([text("busy", 503)]);
    await client(fetch, { retries: 4, baseDelayMs: 100, maxDelayMs: 1000, sleep, random: () => randoms[i++]! }).call("listStores").catch(() => {});
    // caps 100, 200, 400, 800
    expect(waits).toEqual([50, 50, 399, 0]);
  });

  it("with random() = 1 reaches each cap, which doubles until maxDelayMs", async () => {
    const { sleep, waits } = recordingSleep();
    const { fetch } = scriptedFetch([text("busy", 503)]);
    await client(fetch, { retries: 5, baseDelayMs: 200, maxDelayMs: 2000, sleep, random: () => 1 }).call("listStores").catch(() => {});
    expect(waits).toEqual([200, 400, 800, 1600, 2000]);
  });

  it.each([
    [0, 0],
    [0.3, 60],
    [1.7, 200],
    [-1, 0],
    [Number.NaN, 0],
  ])("keeps a wait within bounds for random() = %s", (random, want) => {
    expect(backoffDelay(0, { baseDelayMs: 200, maxDelayMs: 5000, random: () => random })).toBe(want);
  });

  it("honours Retry-After as the least wait", async () => {
    const { sleep, waits } = recordingSleep();
    const { fetch } = scriptedFetch([text("busy", 429, { "retry-after": "2" }), json(storePage)]);
    await client(fetch, { sleep, random: () => 0 }).call("listStores");
    expect(waits).toEqual([2000]);
  });

  it("stops retrying when Retry-After asks for more than maxDelayMs", async () => {
    const { sleep, waits } = recordingSleep();
    const { fetch, seen } = scriptedFetch([json('{"code":100006,"msg":"too many","data":null}', 429, { "retry-after": "60" }), json(storePage)]);
    await expect(client(fetch, { sleep }).call("listStores")).rejects.toBeInstanceOf(ApiError);
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it.each<[string, string | null, number | undefined]>([
    ["delta-seconds", "3", 3000],
    ["an HTTP date 10 s ahead", new Date(1_700_000_010_000).toUTCString(), 10_000],
    ["an HTTP date in the past", new Date(1_699_999_000_000).toUTCString(), 0],
    ["garbage", "soon", undefined],
    ["absence", null, undefined],
  ])("reads Retry-After given as %s", (_name, value, want) => {
    expect(parseRetryAfter(value, 1_700_000_000_000)).toBe(want);
  });
});
