// The Redis nonce store against a real redis-server: the same answers as the memory store,
// per-app shares, failing closed while Redis is away, and recovering when it returns; nonce
// lifetimes on Redis's clock whatever the instances' clocks say; and a Redis that loses its
// data (killed without persistence, flushed, a key evicted) or may evict.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createRedisNonceStore, signRequestHeaders, verifySignedRequest, type NonceStore, type RedisNonceStore } from "../../src/signing/index.js";
import { redisServerMissing, startRedisServer, type RedisServer } from "../support/redis.js";

const NOW = Date.parse("2026-11-22T02:15:30Z");
const EXPIRES = NOW + 301_000;

describe.skipIf(redisServerMissing)("Redis nonce store", () => {
  let redis: RedisServer;
  let store: RedisNonceStore;
  let other: RedisNonceStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = await createRedisNonceStore({ url: redis.url, perAppCapacity: 3, commandTimeoutMs: 2_000 });
    other = await createRedisNonceStore({ url: redis.url, perAppCapacity: 3, commandTimeoutMs: 2_000 });
    await Promise.all([store.ready(), other.ready()]);
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await redis?.close();
  });

  it("answers fresh once, then reused, to every client of the same Redis", async () => {
    expect(await store.useOnce("app-a", "nonce-shared-1", EXPIRES, NOW)).toBe("fresh");
    expect(await store.useOnce("app-a", "nonce-shared-1", EXPIRES, NOW)).toBe("reused");
    expect(await other.useOnce("app-a", "nonce-shared-1", EXPIRES, NOW + 1000)).toBe("reused");
  });

  it("keeps apps apart: the same nonce is fresh for another app key", async () => {
    expect(await store.useOnce("app-b", "nonce-shared-1", EXPIRES, NOW)).toBe("fresh");
  });

  it("does not record a nonce whose window has already passed", async () => {
    expect(await store.useOnce("app-c", "nonce-late-01", NOW, NOW)).toBe("fresh");
    expect(await store.useOnce("app-c", "nonce-late-01", EXPIRES, NOW)).toBe("fresh");
  });

  it("gives each app its own share: a full app is refused, others are not", async () => {
    for (const nonce of ["quota-n-1", "quota-n-2", "quota-n-3"]) expect(await store.useOnce("busy-app", nonce, EXPIRES, NOW)).toBe("fresh");
    expect(await store.useOnce("busy-app", "quota-n-4", EXPIRES, NOW)).toBe("full");
    expect(await other.useOnce("busy-app", "quota-n-4", EXPIRES, NOW)).toBe("full");
    expect(await store.useOnce("quiet-app", "quota-n-4", EXPIRES, NOW)).toBe("fresh");
  });

  it("frees a share once its nonces' lifetime has passed on Redis's clock (not the caller's)", async () => {
    // Lifetimes of 300 ms: Redis expires them by its own clock, so this test waits for it.
    for (const nonce of ["short-n-1", "short-n-2", "short-n-3"]) expect(await store.useOnce("short-app", nonce, NOW + 300, NOW)).toBe("fresh");
    // A caller whose clock is far ahead cannot free the share early...
    expect(await other.useOnce("short-app", "short-n-4", NOW + 10_000_000 + 300, NOW + 10_000_000)).toBe("full");
    // ...and once the lifetime has passed, the share is free again.
    await expect.poll(() => store.useOnce("short-app", "short-n-5", NOW + 300, NOW), { timeout: 3000, interval: 50 }).toBe("fresh");
  });

  it("fails closed while Redis does not answer, and recovers when it does", async () => {
    redis.freeze();
    try {
      expect(await store.useOnce("app-d", "frozen-nonce-1", EXPIRES, NOW)).toBe("unavailable");
    } finally {
      redis.thaw();
    }
    expect(await store.useOnce("app-d", "frozen-nonce-2", EXPIRES, NOW)).toBe("fresh");
  });

  it("fails closed while Redis is down; after a restart it still knows the nonces it had", async () => {
    expect(await store.useOnce("app-e", "before-restart", EXPIRES, NOW)).toBe("fresh");
    await redis.stop();
    expect(await store.useOnce("app-e", "before-restart", EXPIRES, NOW)).toBe("unavailable");
    expect(await store.useOnce("app-e", "during-outage", EXPIRES, NOW)).toBe("unavailable");
    await redis.start();
    await expect.poll(() => store.useOnce("app-e", "after-restart", EXPIRES, NOW), { timeout: 5000, interval: 50 }).toBe("fresh");
    expect(await store.useOnce("app-e", "before-restart", EXPIRES, NOW)).toBe("reused");
  });

  it("refuses a URL that is not redis://", async () => {
    await expect(createRedisNonceStore({ url: "http://127.0.0.1:6379" })).rejects.toThrow(/redis:\/\//);
  });
});

// Signed requests checked by verifySignedRequest over a real Redis store, on injected verifier
// clocks; Redis keeps its own clock, as in production.
const BODY = '{"openUserId":"redis-loss-user"}';
const SECRETS: Record<string, string[]> = { "demo-app-key": ["demo-app-secret"] };
let nonceCounter = 0;
const signedAt = (ms: number, nonce = `redis-loss-${++nonceCounter}-${process.pid}`) =>
  signRequestHeaders({ appKey: "demo-app-key", appSecret: "demo-app-secret", body: BODY, nonce, now: () => ms });
const verifyAt = (headers: Record<string, string>, nonceStore: NonceStore, ms: number) =>
  verifySignedRequest({ headers, body: BODY, secretsFor: (key) => SECRETS[key], nonceStore, now: () => ms });

describe.skipIf(redisServerMissing)("Redis nonce store: lifetimes and clocks", () => {
  let redis: RedisServer;
  let ahead: RedisNonceStore;
  let behind: RedisNonceStore;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    // A store whose memory began an hour ago, as in production (just after it began, a verifier
    // whose clock is ahead refuses requests dated before the start on its clock: see below).
    await admin.set("mop:nonce:marker", String(Date.now() - 3_600_000));
    // A generous command timeout: these tests are about lifetimes, and the suite shares two cores.
    ahead = await createRedisNonceStore({ url: redis.url, commandTimeoutMs: 2_000, onWarning: () => undefined });
    behind = await createRedisNonceStore({ url: redis.url, commandTimeoutMs: 2_000, onWarning: () => undefined });
    await Promise.all([ahead.ready(), behind.ready()]);
  });
  afterAll(async () => {
    admin?.disconnect();
    await ahead?.close();
    await behind?.close();
    await redis?.close();
  });

  it("keeps a nonce 601 s on Redis's clock when an instance 295 s ahead accepted it; the other instance refuses its replay 7.5 s later", async () => {
    const headers = signedAt(NOW);
    expect(await verifyAt(headers, ahead, NOW + 295_000)).toMatchObject({ ok: true });
    const ttl = await admin.pttl(`mop:nonce:{demo-app-key}:${headers["X-Nonce"]}`);
    expect(ttl).toBeGreaterThan(600_000);
    expect(ttl).toBeLessThanOrEqual(601_000);
    expect(await verifyAt(headers, behind, NOW + 7_500)).toMatchObject({ ok: false, code: 100005, name: "NONCE_REUSED" });
    // Its app index expires by Redis's clock too: a far-ahead caller cannot prune it early.
    expect(await admin.zscore("mop:nonce:{demo-app-key}", headers["X-Nonce"])).not.toBeNull();
    expect(await verifyAt(signedAt(NOW + 10_000_000), ahead, NOW + 10_000_000)).toMatchObject({ ok: true });
    expect(await admin.zscore("mop:nonce:{demo-app-key}", headers["X-Nonce"])).not.toBeNull();
  });
});

describe.skipIf(redisServerMissing)("Redis nonce store: a Redis that loses its data", () => {
  let redis: RedisServer;
  let first: RedisNonceStore;
  let second: RedisNonceStore;
  let admin: Redis;
  const warnings: string[] = [];
  let clock = NOW;

  beforeAll(async () => {
    // No persistence: a restart or a kill loses every key, as an in-memory Redis does.
    redis = await startRedisServer({ persistence: false });
    const options = { url: redis.url, commandTimeoutMs: 200, onWarning: (message: string) => void warnings.push(message) };
    first = await createRedisNonceStore(options);
    second = await createRedisNonceStore(options);
    await Promise.all([first.ready(), second.ready()]);
    admin = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    admin.on("error", () => undefined);
  });
  afterAll(async () => {
    admin?.disconnect();
    await first?.close();
    await second?.close();
    await redis?.close();
  });

  /** Three requests accepted, alternately by the two instances; their headers. */
  async function acceptThree(): Promise<Record<string, string>[]> {
    const accepted = [signedAt(clock), signedAt(clock), signedAt(clock)];
    for (const [i, headers] of accepted.entries()) expect(await verifyAt(headers, i % 2 ? second : first, clock)).toMatchObject({ ok: true });
    for (const [i, headers] of accepted.entries()) expect(await verifyAt(headers, i % 2 ? first : second, clock)).toMatchObject({ ok: false, code: 100005 });
    return accepted;
  }

  async function expectForgotten(accepted: Record<string, string>[]) {
    for (const [i, headers] of accepted.entries()) {
      const replay = await verifyAt(headers, i % 2 ? first : second, clock);
      expect(replay).toMatchObject({ ok: false, code: 100006, name: "RATE_LIMITED", httpStatus: 429 });
      expect(replay.ok === false && replay.message).toMatch(/replay-protection store lost its memory after this request was signed/);
    }
  }

  it("refuses the three replays after Redis is killed (SIGKILL) and restarted empty on the same port", async () => {
    const accepted = await acceptThree();
    await redis.kill();
    await redis.start();
    clock += 5_000; // the verifiers' clocks move on meanwhile
    // Both instances reconnect on their own; a request signed now is served by each.
    for (const store of [first, second]) await expect.poll(async () => (await verifyAt(signedAt(clock), store, clock)).ok, { timeout: 5000, interval: 50 }).toBe(true);
    expect(await admin.dbsize()).toBeGreaterThan(0);
    await expectForgotten(accepted);
    expect(warnings.filter((message) => /lost the nonce store's data \(its marker key mop:nonce:marker was gone/.test(message)).length).toBeGreaterThanOrEqual(2);
    expect(warnings.join("\n")).toMatch(/appendonly yes and maxmemory-policy noeviction/);
    // One window later the old timestamps are refused by the window itself; new requests pass.
    clock += 301_000;
    expect(await verifyAt(accepted[0]!, first, clock)).toMatchObject({ ok: false, code: 100004 });
    expect(await verifyAt(signedAt(clock), first, clock)).toMatchObject({ ok: true });
  });

  it("refuses them after FLUSHALL (as after eviction of every key)", async () => {
    clock += 10_000;
    const accepted = await acceptThree();
    warnings.length = 0;
    await admin.flushall();
    clock += 2_000;
    await expectForgotten(accepted);
    expect(await verifyAt(signedAt(clock), second, clock)).toMatchObject({ ok: true });
    expect(warnings.some((message) => message.includes("lost the nonce store's data"))).toBe(true);
  });

  it("still refuses a replay whose nonce key alone was evicted: the app's index remembers it", async () => {
    clock += 10_000;
    const headers = signedAt(clock);
    expect(await verifyAt(headers, first, clock)).toMatchObject({ ok: true });
    expect(await admin.del(`mop:nonce:{demo-app-key}:${headers["X-Nonce"]}`)).toBe(1);
    expect(await verifyAt(headers, second, clock)).toMatchObject({ ok: false, code: 100005 });
  });

  it("serves a request signed after the loss at once: clients in step lose nothing", async () => {
    clock += 10_000;
    await admin.flushall();
    expect(await verifyAt(signedAt(clock), first, clock)).toMatchObject({ ok: true });
  });
});

describe.skipIf(redisServerMissing)("Redis nonce store: a Redis that may evict", () => {
  it("warns when a memory limit comes with an eviction policy other than noeviction", async () => {
    const redis = await startRedisServer({ persistence: false, args: ["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"] });
    const warnings: string[] = [];
    const store = await createRedisNonceStore({ url: redis.url, commandTimeoutMs: 200, onWarning: (message) => void warnings.push(message) });
    try {
      await store.ready();
      await expect.poll(() => warnings.length, { timeout: 2000, interval: 20 }).toBeGreaterThan(0);
      expect(warnings[0]).toMatch(/may evict keys \(maxmemory 67108864 bytes, maxmemory-policy allkeys-lru\).*Set maxmemory-policy noeviction/);
    } finally {
      await store.close();
      await redis.close();
    }
  });

  it("fails closed when a noeviction Redis is full: new nonces are refused, none forgotten", async () => {
    const redis = await startRedisServer({ persistence: false, args: ["--maxmemory-policy", "noeviction"] });
    const store = await createRedisNonceStore({ url: redis.url, commandTimeoutMs: 500, onWarning: () => undefined });
    const admin = new Redis(redis.url);
    try {
      await store.ready();
      const kept = signedAt(NOW);
      expect(await verifyAt(kept, store, NOW)).toMatchObject({ ok: true });
      // Full: its memory limit set below what it holds (as when data grows past maxmemory).
      const used = Number(/^used_memory:(\d+)/m.exec(await admin.info("memory"))![1]);
      await admin.config("SET", "maxmemory", String(Math.floor(used / 2)));
      await expect(admin.set("one-more-key", "x")).rejects.toThrow(/OOM/);
      const refused = await verifyAt(signedAt(NOW), store, NOW);
      expect(refused).toMatchObject({ ok: false, code: 100006 });
      expect(refused.ok === false && refused.message).toMatch(/unreachable/);
      // The nonce recorded before is still there: its replay is still refused as reused.
      expect(await verifyAt(kept, store, NOW)).toMatchObject({ ok: false, code: 100005 });
    } finally {
      admin.disconnect();
      await store.close();
      await redis.close();
    }
  });
});
