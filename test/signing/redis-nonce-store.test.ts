// The Redis nonce store against a real redis-server: the same answers as the memory store,
// per-app shares, failing closed while Redis is away, and recovering when it returns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisNonceStore, type RedisNonceStore } from "../../src/signing/index.js";
import { redisServerMissing, startRedisServer, type RedisServer } from "../support/redis.js";

const NOW = Date.parse("2026-11-22T02:15:30Z");
const EXPIRES = NOW + 301_000;

describe.skipIf(redisServerMissing)("Redis nonce store", () => {
  let redis: RedisServer;
  let store: RedisNonceStore;
  let other: RedisNonceStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = await createRedisNonceStore({ url: redis.url, perAppCapacity: 3, commandTimeoutMs: 200 });
    other = await createRedisNonceStore({ url: redis.url, perAppCapacity: 3, commandTimeoutMs: 200 });
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
    // Once the window of the held nonces has passed, the share is free again.
    expect(await store.useOnce("busy-app", "quota-n-5", EXPIRES + 400_000, EXPIRES + 1)).toBe("fresh");
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
