// Replay protection shared by every instance behind a load balancer: a nonce recorded by one
// instance is refused by all (DESIGN item 6). One Lua script per request keeps the check, the
// per-app quota and the record atomic on the Redis server, in one round trip.
//
// It fails closed: when Redis cannot be reached the answer is "unavailable" and the signature
// check refuses the request (100006), because accepting it could accept a replay. ioredis is an
// optional peer dependency, loaded only when a Redis store is created.
import type { Redis, RedisOptions } from "ioredis";
import { PeerDependencyMissingError } from "../errors.js";
import { NonceStoreUnavailableError, SigningInputError } from "./errors.js";
import type { NonceStore, NonceUse } from "./nonce-store.js";

export interface RedisNonceStoreOptions {
  /** redis:// or rediss:// URL of the server. */
  url: string;
  /** Most nonces one app key may hold at once (its share of the store). Default 200 000. */
  perAppCapacity?: number;
  /** Prefix of every key the store writes. Default "mop:nonce:". */
  keyPrefix?: string;
  /** How long one check may wait for Redis before the request is refused. Default 500 ms. */
  commandTimeoutMs?: number;
}

export interface RedisNonceStore extends NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<NonceUse>;
  readonly perAppCapacity: number;
  /** Resolves once the first connection is up (rejects after commandTimeoutMs × 4 without one). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

// KEYS[1] the nonce's key, KEYS[2] the app's index (sorted set of nonce → expiry ms).
// ARGV: now ms, expiry ms, time to live ms, per-app capacity, nonce.
// Both keys carry the app in a hash tag, so they live in one cluster slot.
const USE_ONCE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'reused' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 'fresh'
`;

function positiveInteger(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new SigningInputError(field, `${field} must be a positive whole number, got ${String(value)}`);
  }
  return value;
}

/** A nonce store in Redis, shared by every server instance that points at the same Redis. */
export async function createRedisNonceStore(options: RedisNonceStoreOptions): Promise<RedisNonceStore> {
  if (typeof options.url !== "string" || !/^rediss?:\/\//.test(options.url)) {
    throw new SigningInputError("url", `url must be a redis:// or rediss:// URL, got ${JSON.stringify(options.url)}`);
  }
  const perAppCapacity = positiveInteger("perAppCapacity", options.perAppCapacity ?? 200_000);
  const commandTimeoutMs = positiveInteger("commandTimeoutMs", options.commandTimeoutMs ?? 500);
  const prefix = options.keyPrefix ?? "mop:nonce:";
  let RedisClient: typeof import("ioredis").Redis;
  try {
    ({ Redis: RedisClient } = await import("ioredis"));
  } catch (error) {
    // An optional peer dependency: users of the memory store never install it.
    throw new PeerDependencyMissingError("ioredis", `a Redis nonce store needs the ioredis package: npm install ioredis@6 (${(error as Error).message})`, { cause: error });
  }
  const settings: RedisOptions = {
    // Fail fast instead of queueing commands while disconnected: a queued check would hold the
    // request open; a refused one tells the client to retry.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs * 4,
    // Keep reconnecting (capped back-off) so the store recovers on its own when Redis returns.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    lazyConnect: false,
  };
  const client: Redis = new RedisClient(options.url, settings);
  // Connection errors surface as "unavailable" answers; without a listener ioredis would log them.
  client.on("error", () => undefined);
  client.defineCommand("mopUseNonce", { numberOfKeys: 2, lua: USE_ONCE });
  const useNonce = (client as unknown as Record<string, (...args: (string | number)[]) => Promise<string>>).mopUseNonce!.bind(client);

  return {
    perAppCapacity,
    async useOnce(appKey, nonce, expiresAtMs, nowMs) {
      const ttlMs = Math.ceil(expiresAtMs - nowMs);
      // Already outside the window: the timestamp check refuses any replay, nothing to keep.
      if (!(ttlMs > 0)) return "fresh";
      const tag = `${prefix}{${appKey}}`;
      try {
        const answer = await useNonce(`${tag}:${nonce}`, `${tag}`, Math.floor(nowMs), Math.ceil(expiresAtMs), ttlMs, perAppCapacity, nonce);
        return answer === "fresh" || answer === "reused" || answer === "full" ? answer : "unavailable";
      } catch {
        return "unavailable";
      }
    },
    ready() {
      if (client.status === "ready") return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(new NonceStoreUnavailableError(`Redis at ${redactUrl(options.url)} did not answer within ${commandTimeoutMs * 4} ms`));
        }, commandTimeoutMs * 4);
        const onReady = () => {
          cleanup();
          resolve();
        };
        const cleanup = () => {
          clearTimeout(timer);
          client.off("ready", onReady);
        };
        client.on("ready", onReady);
      });
    },
    async close() {
      client.disconnect();
    },
  };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
