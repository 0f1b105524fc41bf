// The signing proxy (--sign): fresh signature headers over the exact bytes forwarded, a request
// that carries its own signature left alone unless told to replace it, path and query as sent.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy, type RunningProxy } from "../../src/proxy/index.js";
import { parseJsonLossless } from "../../src/json/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { DEMO, T0 } from "../support/sandbox.js";
import { DEMO_SECRETS, rawExchange, rawHeader, rawRequest, sandboxBehindProxy, startRecordingUpstream, type RecordingUpstream, type SandboxBehindProxy } from "./helpers.js";

const OTHER = { appKey: "basic-app-key", appSecret: "basic-app-secret" };
const hmac = (secret: string, prefix: string, body: Buffer) => createHmac("sha256", secret).update(prefix).update(body).digest("base64");

describe("against a recording upstream", () => {
  let upstream: RecordingUpstream;
  let proxy: RunningProxy;
  let replacing: RunningProxy;
  let nonces = 0;
  const nonce = () => `proxy-nonce-${++nonces}`;
  beforeAll(async () => {
    upstream = await startRecordingUpstream();
    const secrets = new Map([...DEMO_SECRETS, [OTHER.appKey, [OTHER.appSecret]]]);
    proxy = await startProxy({ target: upstream.url, secrets, sign: { nonce }, now: () => T0 });
    replacing = await startProxy({ target: upstream.url, secrets, sign: { replace: true, nonce }, now: () => T0 });
  });
  afterAll(async () => {
    await proxy.close();
    await replacing.close();
    await upstream.close();
  });

  it("adds X-App-Key, X-Timestamp, X-Nonce and X-Sign over the exact body bytes", async () => {
    // Odd spacing, non-ASCII and a digit run JSON.parse would round: bytes must not change.
    const body = Buffer.from('{ "merchantId" :10001,"userId": 9007199254740993, "remark":"少冰 🍵" }', "utf8");
    await fetch(`${proxy.url}/open-api/v1/orders`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const arrival = upstream.arrivals.at(-1)!;
    expect(arrival.body.equals(body)).toBe(true);
    const [appKey, timestamp, sentNonce, sign] = ["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"].map((name) => rawHeader(arrival.rawHeaders, name));
    expect({ appKey, timestamp }).toEqual({ appKey: [DEMO.appKey], timestamp: [String(T0 / 1000)] });
    expect(sentNonce![0]).toMatch(/^proxy-nonce-\d+$/);
    expect(sign).toEqual([hmac(DEMO.appSecret, `${DEMO.appKey}${T0 / 1000}${sentNonce![0]}`, body)]);
    expect(rawHeader(arrival.rawHeaders, "Content-Length")).toEqual([String(body.length)]);
  });

  it("gives every request a fresh nonce", async () => {
    await fetch(`${proxy.url}/open-api/v1/stores?merchantId=10001`);
    await fetch(`${proxy.url}/open-api/v1/stores?merchantId=10001`);
    const [a, b] = upstream.arrivals.slice(-2).map((arrival) => rawHeader(arrival.rawHeaders, "X-Nonce")[0]);
    expect(a).not.toEqual(b);
  });

  it("signs as the configured app the request names in X-App-Key", async () => {
    await fetch(`${proxy.url}/open-api/v1/merchants`, { headers: { "X-App-Key": OTHER.appKey } });
    const arrival = upstream.arrivals.at(-1)!;
    const [ts, n] = [rawHeader(arrival.rawHeaders, "X-Timestamp")[0], rawHeader(arrival.rawHeaders, "X-Nonce")[0]];
    expect(rawHeader(arrival.rawHeaders, "X-App-Key")).toEqual([OTHER.appKey]);
    expect(rawHeader(arrival.rawHeaders, "X-Sign")).toEqual([hmac(OTHER.appSecret, `${OTHER.appKey}${ts}${n}`, Buffer.alloc(0))]);
  });

  it("passes a request that carries its own signature unchanged", async () => {
    const body = '{"openUserId":"u-1"}';
    const own = signRequestHeaders({ ...DEMO, body, now: () => T0, nonce: "client-nonce-1" });
    await fetch(`${proxy.url}/open-api/v1/customers/sync`, { method: "POST", headers: { ...own, "Content-Type": "application/json" }, body });
    const arrival = upstream.arrivals.at(-1)!;
    for (const [name, value] of Object.entries(own)) expect(rawHeader(arrival.rawHeaders, name)).toEqual([value]);
  });

  it("replaces a carried signature with --replace-signature, leaving one of each header", async () => {
    const body = '{"openUserId":"u-2"}';
    await fetch(`${replacing.url}/open-api/v1/customers/sync`, {
      method: "POST",
      headers: { "X-App-Key": DEMO.appKey, "x-timestamp": "1", "X-Nonce": "stale-nonce-1", "X-SIGN": "bogus", "Content-Type": "application/json" },
      body,
    });
    const arrival = upstream.arrivals.at(-1)!;
    const names = arrival.rawHeaders.filter((_v, i) => i % 2 === 0).map((n) => n.toLowerCase());
    for (const name of ["x-app-key", "x-timestamp", "x-nonce", "x-sign"]) expect(names.filter((n) => n === name)).toHaveLength(1);
    const [ts, n] = [rawHeader(arrival.rawHeaders, "X-Timestamp")[0], rawHeader(arrival.rawHeaders, "X-Nonce")[0]];
    expect(ts).toBe(String(T0 / 1000));
    expect(rawHeader(arrival.rawHeaders, "X-Sign")).toEqual([hmac(DEMO.appSecret, `${DEMO.appKey}${ts}${n}`, Buffer.from(body))]);
  });

  it("keeps the path and query exactly as sent", async () => {
    const target = "/open-api/v1/stores?merchantId=10001&name=%E4%B8%AD+x&pageNo=01";
    await rawExchange(proxy.url, rawRequest("GET", target));
    expect(upstream.arrivals.at(-1)!.url).toBe(target);
    expect(rawHeader(upstream.arrivals.at(-1)!.rawHeaders, "X-Sign")).toHaveLength(1);
  });

  it("does not sign the key-based interface or paths outside the contract", async () => {
    await fetch(`${proxy.url}/v1/merchants`, { headers: { Authorization: "Bearer k" } });
    await fetch(`${proxy.url}/sandbox/clock`);
    for (const arrival of upstream.arrivals.slice(-2)) expect(rawHeader(arrival.rawHeaders, "X-Sign")).toEqual([]);
  });
});

describe("against the sandbox", () => {
  let setup: SandboxBehindProxy;
  beforeAll(async () => {
    setup = await sandboxBehindProxy({ secrets: DEMO_SECRETS, sign: true, failOnViolation: true });
  });
  afterAll(() => setup.close());

  it("lets an unsigned client complete createOrder → getOrder with the exact id", async () => {
    const body = '{"merchantId":10001,"userId":880000000001,"orderType":1,"items":[{"itemType":1,"itemId":31001,"itemName":"Oolong milk tea","price":1800,"quantity":2}]}';
    const created = await fetch(`${setup.proxy.url}/open-api/v1/orders`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const createdText = await created.text();
    expect(created.status, createdText).toBe(200);
    const orderId = /"data":(\d+)/.exec(createdText)![1]!;
    expect(BigInt(orderId) > 2n ** 53n).toBe(true);
    const read = await fetch(`${setup.proxy.url}/open-api/v1/orders/${orderId}?merchantId=10001`);
    const json = parseJsonLossless(await read.text()) as { code: number; data: { id: bigint } };
    expect(json.code).toBe(0);
    expect(String(json.data.id)).toBe(orderId);
    expect(setup.violations).toEqual([]);
  });

  it("signs on the unversioned /open-api base too", async () => {
    const answer = await fetch(`${setup.proxy.url}/open-api/merchants/10001`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { code: number }).code).toBe(0);
  });
});
