import { describe, expect, it } from "vitest";
import {
  createMemoryNonceStore,
  SigningInputError,
  signRequestHeaders,
  verifySignedRequest,
  type NonceUse,
  type VerifySignedRequestInput,
} from "../../src/signing/index.js";

const S = 1000; // ms per second
const t0 = 1_718_870_400_000;

describe("memory nonce store", () => {
  type Step = [appKey: string, nonce: string, expiresAtMs: number, nowMs: number];
  it.each<[string, { given: { capacity?: number; steps: Step[] }; want: NonceUse[] }]>([
    ["answers fresh once, then reused until the expiry", { given: { steps: [["app", "nonce-0001", t0 + 600 * S, t0], ["app", "nonce-0001", t0 + 600 * S, t0 + 599 * S]] }, want: ["fresh", "reused"] }],
    ["keeps nonces per app key", { given: { steps: [["app-a", "nonce-0001", t0 + 600 * S, t0], ["app-b", "nonce-0001", t0 + 600 * S, t0]] }, want: ["fresh", "fresh"] }],
    ["does not confuse app key and nonce boundaries", { given: { steps: [["ab", "cdefghij", t0 + 600 * S, t0], ["a", "bcdefghij", t0 + 600 * S, t0]] }, want: ["fresh", "fresh"] }],
    ["forgets a nonce once it has expired", { given: { steps: [["app", "nonce-0001", t0 + 10 * S, t0], ["app", "nonce-0001", t0 + 20 * S, t0 + 10 * S]] }, want: ["fresh", "fresh"] }],
    [
      "answers full at capacity rather than evicting an unexpired nonce",
      { given: { capacity: 2, steps: [["app", "nonce-0001", t0 + 600 * S, t0], ["app", "nonce-0002", t0 + 600 * S, t0], ["app", "nonce-0003", t0 + 600 * S, t0], ["app", "nonce-0001", t0 + 600 * S, t0]] }, want: ["fresh", "fresh", "full", "reused"] },
    ],
    ["records nothing for an already expired nonce", { given: { capacity: 1, steps: [["app", "nonce-0001", t0, t0], ["app", "nonce-0002", t0 + S, t0]] }, want: ["fresh", "fresh"] }],
  ])("%s", (_name, { given, want }) => {
    const store = createMemoryNonceStore(given.capacity === undefined ? {} : { capacity: given.capacity });
    expect(given.steps.map((step) => store.useOnce(...step))).toEqual(want);
  });

  it("gives each app its own share: one app at its share is refused, the others are not", () => {
    const store = createMemoryNonceStore({ capacity: 4, perAppCapacity: 2 });
    expect(store.perAppCapacity).toBe(2);
    expect(["nonce-0001", "nonce-0002", "nonce-0003"].map((nonce) => store.useOnce("busy", nonce, t0 + 600 * S, t0))).toEqual(["fresh", "fresh", "full"]);
    expect(store.useOnce("busy", "nonce-0001", t0 + 600 * S, t0)).toBe("reused");
    expect(["nonce-0001", "nonce-0002"].map((nonce) => store.useOnce("quiet", nonce, t0 + 600 * S, t0))).toEqual(["fresh", "fresh"]);
    expect(store.size).toBe(4);
    // Its nonces expire, its share is free again.
    expect(store.useOnce("busy", "nonce-0003", t0 + 1200 * S, t0 + 601 * S)).toBe("fresh");
  });

  it("never lets the per-app share exceed the capacity, and refuses a share that is not a positive whole number", () => {
    expect(createMemoryNonceStore({ capacity: 3, perAppCapacity: 10 }).perAppCapacity).toBe(3);
    expect(() => createMemoryNonceStore({ perAppCapacity: 0 })).toThrow(SigningInputError);
  });

  it("frees capacity as the clock moves past expiries", () => {
    const store = createMemoryNonceStore({ capacity: 3 });
    for (const nonce of ["nonce-0001", "nonce-0002", "nonce-0003"]) expect(store.useOnce("app", nonce, t0 + S, t0)).toBe("fresh");
    expect(store.useOnce("app", "nonce-0004", t0 + 600 * S, t0 + 500)).toBe("full");
    expect(store.size).toBe(3);
    // Expired entries are dropped once their one-second bucket has passed.
    expect(store.useOnce("app", "nonce-0004", t0 + 600 * S, t0 + 2 * S)).toBe("fresh");
    expect(store.size).toBe(1);
  });

  it("prunes an early expiry stored after a later one (expiries are not in arrival order)", () => {
    const store = createMemoryNonceStore();
    store.useOnce("app", "late-expiry", t0 + 601 * S, t0); // timestamp 300 s ahead
    store.useOnce("app", "early-expiry", t0 + S, t0); // timestamp 300 s behind
    expect(store.size).toBe(2);
    store.prune(t0 + 3 * S);
    expect(store.size).toBe(1);
    expect(store.useOnce("app", "late-expiry", t0 + 601 * S, t0 + 3 * S)).toBe("reused");
  });

  it("still prunes entries stored after the clock stepped back", () => {
    const store = createMemoryNonceStore();
    store.useOnce("app", "nonce-0001", t0 + 10 * S, t0);
    store.prune(t0 + 20 * S);
    expect(store.size).toBe(0);
    store.useOnce("app", "nonce-0002", t0 - 50 * S, t0 - 100 * S); // clock went back 120 s
    expect(store.size).toBe(1);
    store.prune(t0 + 30 * S);
    expect(store.size).toBe(0);
  });

  it("empties after a large clock jump without walking every second", () => {
    const store = createMemoryNonceStore();
    for (let i = 0; i < 1000; i++) store.useOnce("app", `nonce-${i}-xxxx`, t0 + (i % 600) * S + S, t0);
    const started = performance.now();
    store.prune(t0 + 10 * 365 * 86_400 * S);
    expect(store.size).toBe(0);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("stays bounded under steady traffic with skewed timestamps", () => {
    const capacity = 1000;
    const store = createMemoryNonceStore({ capacity });
    const windowMs = 30 * S;
    let maxSize = 0;
    // 20 requests per second for 1000 s; client clocks off by up to ±30 s.
    for (let i = 0; i < 20_000; i++) {
      const nowMs = t0 + i * 50;
      const skewMs = ((i * 7919) % 61) * S - windowMs;
      const answer = store.useOnce("app", `n-${i.toString(36).padStart(8, "0")}`, nowMs + skewMs + windowMs + S, nowMs);
      expect(answer).toBe("fresh");
      maxSize = Math.max(maxSize, store.size);
    }
    // Steady state is rate x mean lifetime (20/s x about 31 s), plus up to one bucket of
    // expired entries: far below what 20 000 unpruned nonces would take.
    expect(maxSize).toBeLessThanOrEqual(20 * 34);
    expect(maxSize).toBeLessThan(capacity);
  });

  it.each<[string, { given: Parameters<typeof createMemoryNonceStore>[0]; want: RegExp }]>([
    ["refuses a zero capacity", { given: { capacity: 0 }, want: /capacity must be a positive whole number/ }],
    ["refuses a fractional capacity", { given: { capacity: 1.5 }, want: /capacity/ }],
  ])("%s", (_name, { given, want }) => {
    expect(() => createMemoryNonceStore(given)).toThrow(SigningInputError);
    expect(() => createMemoryNonceStore(given)).toThrow(want);
  });

  it("refuses a non-finite time with SigningInputError", () => {
    const store = createMemoryNonceStore();
    expect(() => store.useOnce("app", "nonce-0001", Number.NaN, t0)).toThrow(SigningInputError);
    expect(() => store.useOnce("app", "nonce-0001", t0 + S, Number.POSITIVE_INFINITY)).toThrow(SigningInputError);
    expect(() => createMemoryNonceStore({ forgottenBeforeMs: Number.NaN })).toThrow(SigningInputError);
  });

  it("with forgottenBeforeMs answers forgotten for timestamps before that second, and only when told the timestamp", () => {
    const store = createMemoryNonceStore({ forgottenBeforeMs: t0 + 500 });
    expect(store.useOnce("app", "nonce-0001", t0 + 601 * S, t0 + 2 * S, t0 - S)).toBe("forgotten");
    expect(store.useOnce("app", "nonce-0002", t0 + 601 * S, t0 + 2 * S, t0)).toBe("fresh");
    expect(store.useOnce("app", "nonce-0003", t0 + 601 * S, t0 + 2 * S)).toBe("fresh");
    expect(store.size).toBe(2);
  });
});

describe("replay protection in verifySignedRequest", () => {
  const T = 1718870400;
  const body = '{"merchantId":10001}';
  const secrets: Record<string, string[]> = { "demo-app-key": ["demo-app-secret-0123456789"], "other-app-key": ["other-app-secret-0000"] };
  const request = (appKey: string, nonce: string, timestamp = T) =>
    signRequestHeaders({ appKey, appSecret: secrets[appKey]?.[0] ?? "", body, timestamp, nonce });
  const check = (headers: Record<string, string>, nowSeconds: number, extra: Partial<VerifySignedRequestInput>) =>
    verifySignedRequest({ headers, body, secretsFor: (key) => secrets[key], now: () => nowSeconds * 1000, ...extra });

  it("refuses a nonce reused by the same app key within the window", async () => {
    const nonceStore = createMemoryNonceStore();
    const headers = request("demo-app-key", "replay-nonce-1");
    expect(await check(headers, T, { nonceStore })).toMatchObject({ ok: true });
    const replay = await check(headers, T + 300, { nonceStore });
    expect(replay).toMatchObject({ ok: false, code: 100005, name: "NONCE_REUSED", httpStatus: 401 });
    expect(replay.ok === false && replay.message).toMatch(/"replay-nonce-1" was already used by this app key/);
  });

  it("refuses a replay after the window by its timestamp", async () => {
    const nonceStore = createMemoryNonceStore();
    const headers = request("demo-app-key", "replay-nonce-2");
    await check(headers, T, { nonceStore });
    expect(await check(headers, T + 301, { nonceStore })).toMatchObject({ ok: false, code: 100004 });
  });

  it("remembers a nonce for as long as its timestamp is accepted, even one signed 300 s ahead", async () => {
    const nonceStore = createMemoryNonceStore();
    const headers = request("demo-app-key", "ahead-nonce-1", T + 300);
    expect(await check(headers, T, { nonceStore })).toMatchObject({ ok: true });
    // The timestamp stays acceptable until the server clock reaches T + 600 (and its last millisecond).
    const late = await verifySignedRequest({ headers, body, secretsFor: (key) => secrets[key], now: () => (T + 600) * 1000 + 999, nonceStore });
    expect(late).toMatchObject({ ok: false, code: 100005 });
  });

  it("keeps a nonce for a fixed lifetime from acceptance: an instance 295 s ahead does not shorten it for the others", async () => {
    // Two verifiers share one store; the first one's clock is 295 s ahead of the second's (and
    // of the client's). The client signs at T; the first accepts it (295 s is inside the window).
    const nonceStore = createMemoryNonceStore();
    const ahead = (seconds: number) =>
      verifySignedRequest({ headers: request("demo-app-key", `ahead-nonce-${seconds * 10}`, T + Math.floor(seconds)), body, secretsFor: (key) => secrets[key], now: () => (T + 295 + seconds) * 1000, nonceStore });
    const headers = request("demo-app-key", "skewed-nonce-1");
    expect(await check(headers, T + 295, { nonceStore })).toMatchObject({ ok: true });
    // 7.5 s later the first verifier handles other requests (the store drops what has expired
    // by its clock: before, the nonce was kept until T + 301, 6 s on that clock)...
    expect(await ahead(7.5)).toMatchObject({ ok: true });
    // ...and the replay, sent to the second verifier 7.5 s after the first acceptance, is refused.
    const replay = await verifySignedRequest({ headers, body, secretsFor: (key) => secrets[key], now: () => (T + 7.5) * 1000, nonceStore });
    expect(replay).toMatchObject({ ok: false, code: 100005, name: "NONCE_REUSED" });
    // The second verifier accepts this timestamp until T + 300; the nonce outlives it there too.
    const last = await verifySignedRequest({ headers, body, secretsFor: (key) => secrets[key], now: () => (T + 300) * 1000 + 999, nonceStore });
    expect(last).toMatchObject({ ok: false, code: 100005 });
  });

  it("asks the store to keep each nonce 601 s from acceptance, whatever the timestamp, and tells it the timestamp", async () => {
    const calls: [string, string, number, number, number | undefined][] = [];
    const recording = { useOnce: (appKey: string, nonce: string, expiresAtMs: number, nowMs: number, timestampMs?: number) => (calls.push([appKey, nonce, expiresAtMs, nowMs, timestampMs]), "fresh" as const) };
    for (const [signedAt, now] of [[T, T], [T - 290, T], [T + 290, T]] as [number, number][]) {
      await check(request("demo-app-key", `lifetime-${signedAt}`, signedAt), now, { nonceStore: recording });
    }
    expect(calls.map(([, , expiresAtMs, nowMs, timestampMs]) => [expiresAtMs - nowMs, timestampMs])).toEqual([[601_000, T * 1000], [601_000, (T - 290) * 1000], [601_000, (T + 290) * 1000]]);
  });

  it("refuses a request the store has forgotten (dated before its memory began) with 100006, naming the loss", async () => {
    // A server restarted at T + 10 with a store that knows it (forgottenBeforeMs).
    const nonceStore = createMemoryNonceStore({ forgottenBeforeMs: (T + 10) * 1000 + 400 });
    const before = await check(request("demo-app-key", "before-restart-1", T + 9), T + 12, { nonceStore });
    expect(before).toMatchObject({ ok: false, code: 100006, name: "RATE_LIMITED", httpStatus: 429 });
    expect(before.ok === false && before.message).toMatch(/replay-protection store lost its memory after this request was signed \(X-Timestamp \d+\).*Sign the request again/);
    // Signed in the second of the restart or later: accepted.
    expect(await check(request("demo-app-key", "after-restart-1", T + 10), T + 12, { nonceStore })).toMatchObject({ ok: true });
    // Once its timestamp leaves the window the old request is refused by the window anyway.
    expect(await check(request("demo-app-key", "before-restart-1", T + 9), T + 310, { nonceStore })).toMatchObject({ ok: false, code: 100004 });
  });

  it("accepts the same nonce from another app key", async () => {
    const nonceStore = createMemoryNonceStore();
    expect(await check(request("demo-app-key", "shared-nonce-1"), T, { nonceStore })).toMatchObject({ ok: true });
    expect(await check(request("other-app-key", "shared-nonce-1"), T, { nonceStore })).toMatchObject({ ok: true, appKey: "other-app-key" });
  });

  it.each<[string, { given: Record<string, string>; want: number }]>([
    ["a forged signature", { given: { "X-Sign": "A".repeat(43) + "=" }, want: 100003 }],
    ["an expired timestamp", { given: { "X-Timestamp": String(T - 1000) }, want: 100004 }],
    ["an unknown app key", { given: { "X-App-Key": "nobody" }, want: 100002 }],
  ])("does not burn the nonce of a request refused for %s", async (_name, { given, want }) => {
    const nonceStore = createMemoryNonceStore();
    const genuine = request("demo-app-key", "victim-nonce-1");
    expect(await check({ ...genuine, ...given }, T, { nonceStore })).toMatchObject({ ok: false, code: want });
    expect(nonceStore.size).toBe(0);
    expect(await check(genuine, T, { nonceStore })).toMatchObject({ ok: true });
  });

  it("answers RATE_LIMITED when the store is full, and recovers as nonces expire", async () => {
    const nonceStore = createMemoryNonceStore({ capacity: 2 });
    expect(await check(request("demo-app-key", "full-nonce-1"), T, { nonceStore })).toMatchObject({ ok: true });
    expect(await check(request("demo-app-key", "full-nonce-2"), T, { nonceStore })).toMatchObject({ ok: true });
    const refused = await check(request("demo-app-key", "full-nonce-3"), T, { nonceStore });
    expect(refused).toMatchObject({ ok: false, code: 100006, name: "RATE_LIMITED", httpStatus: 429 });
    expect(refused.ok === false && refused.message).toMatch(/cannot remember more nonces/);
    // The first two are remembered for 601 s from their acceptance (two windows and a second):
    // still full at T + 600, a request signed at T + 602 gets through.
    expect(await check(request("demo-app-key", "full-nonce-3", T + 600), T + 600, { nonceStore })).toMatchObject({ ok: false, code: 100006 });
    expect(await check(request("demo-app-key", "full-nonce-3", T + 602), T + 602, { nonceStore })).toMatchObject({ ok: true });
  });

  it("uses a process-wide memory store when none is given", async () => {
    const headers = request("demo-app-key", "default-store-nonce");
    expect(await check(headers, T, {})).toMatchObject({ ok: true });
    expect(await check(headers, T, {})).toMatchObject({ ok: false, code: 100005 });
  });
});

describe("the memory nonce store under a full window", () => {
  it("stays bounded: full means refused, and expired nonces make room again", () => {
    const store = createMemoryNonceStore({ capacity: 3 });
    const now = 1_800_000_000_000;
    for (const nonce of ["a", "b", "c"]) expect(store.useOnce("k", nonce, now + 301_000, now)).toBe("fresh");
    expect(store.useOnce("k", "d", now + 301_000, now)).toBe("full");
    expect(store.useOnce("k", "a", now + 301_000, now + 1000)).toBe("reused");
    expect(store.size).toBe(3);
    expect(store.useOnce("k", "d", now + 700_000, now + 302_000)).toBe("fresh");
    expect(store.size).toBe(1);
    expect(store.useOnce("k", "a", now + 700_000, now + 302_000)).toBe("fresh");
  });
});
