// Replay protection shared by every instance behind a load balancer: a nonce recorded by one
// instance is refused by all (DESIGN item 6). One Lua script per request keeps the check, the
// per-app quota and the record atomic on the Redis server, in one round trip.
//
// It fails closed: when Redis cannot be reached the answer is "unavailable" and the signature
// check refuses the request (100006), because accepting it could accept a replay. ioredis is an
// optional peer dependency, loaded only when a Redis store is created.
//
// A Redis that loses its data (restarted without persistence, flushed, failed over to an empty
// replica, keys evicted) would accept every replay of the last window. So the store keeps a
// marker key without expiry holding the moment its memory began, on Redis's clock; when the
// marker is gone, the memory begins again now, and requests dated before that moment are
// answered "forgotten" (refused) until they leave the window. Durations are measured on Redis's
// clock and instants on the verifier's, so instances whose clocks differ agree. Nonces expire by
// a relative TTL, never by an instance's clock. An evicted nonce key whose app index still lists
// it is still "reused". See docs/signing.md for the Redis settings that keep nonces.
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
  /**
   * Told when Redis lost nonces (the marker key was gone) or is set up so that it may (a memory
   * limit with an eviction policy other than noeviction). Must not throw. Default: a Node.js
   * process warning (process.emitWarning, code MOP_NONCE_STORE).
   */
  onWarning?: (message: string) => void;
}

export interface RedisNonceStore extends NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number, timestampMs?: number): Promise<NonceUse>;
  readonly perAppCapacity: number;
  /** The marker key: its value is when this Redis's memory of nonces began (Redis clock, epoch ms). */
  readonly markerKey: string;
  /** Resolves once the first connection is up (rejects after commandTimeoutMs × 4 without one). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

// The moment the store's memory began: the marker's value, or now when it is missing (first use,
// or data lost), written then. Redis's own clock: every instance reads the same one.
const MEMORY_SINCE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local since = tonumber(redis.call('GET', KEYS[1]))
if not since then
  since = now
  redis.call('SET', KEYS[1], string.format('%d', since))
end
`;

// KEYS[1] the marker, KEYS[2] the nonce's key, KEYS[3] the app's index (sorted set of nonce →
// expiry, Redis clock). ARGV: time to live ms, per-app capacity, nonce, the verifier's now ms,
// the request's timestamp in seconds ('' when not given).
// Answers {answer, since ms, now ms} (Redis clock).
// The first write that can grow memory is the SET: Redis refuses a script over maxmemory only
// at its first write (once it has written it cannot stop midway), so pruning, which is a write
// that frees memory, comes after it; a full noeviction Redis then refuses the nonce (fails
// closed) instead of recording it.
const USE_ONCE = `${MEMORY_SINCE}
if ARGV[5] ~= '' then
  -- The memory's start on the verifier's clock: its now minus the memory's age on Redis's.
  local start = tonumber(ARGV[4]) - (now - since)
  if tonumber(ARGV[5]) < math.floor(start / 1000) then return {'forgotten', since, now} end
end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'reused', since, now} end
-- The index is a second witness: a nonce key evicted on its own is still listed there.
local listed = redis.call('ZSCORE', KEYS[3], ARGV[3])
if listed and tonumber(listed) > now then return {'reused', since, now} end
if redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf') >= tonumber(ARGV[2]) then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  return {'full', since, now}
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[1]), ARGV[3])
local ttl = redis.call('PTTL', KEYS[3])
if ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[3], ARGV[1]) end
return {'fresh', since, now}
`;

// On every (re)connection: the marker written at once if missing, so that the memory of a fresh
// or emptied Redis begins before the first request rather than with it.
const MARKER = `${MEMORY_SINCE}
return {since, now}
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
  client.defineCommand("mopUseNonce", { numberOfKeys: 3, lua: USE_ONCE });
  client.defineCommand("mopNonceMarker", { numberOfKeys: 1, lua: MARKER });
  const commands = client as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  const useNonce = commands.mopUseNonce!.bind(client);
  const marker = commands.mopNonceMarker!.bind(client);
  const markerKey = `${prefix}marker`;
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, { code: "MOP_NONCE_STORE" }));
  const where = redactUrl(options.url);

  // The memory start this instance last saw: a different one means the marker was lost meanwhile.
  let knownSince: number | undefined;
  const noteSince = (since: number, now: number) => {
    if (knownSince !== undefined && since !== knownSince) {
      const lostAt = new Date(Date.now() - (now - since)).toISOString();
      tell(
        `Redis at ${where} lost the nonce store's data (its marker key ${markerKey} was gone: a restart without persistence, FLUSHALL, a failover or eviction); ` +
          `its memory of nonces begins again at about ${lostAt}, and requests dated before then are refused (100006) until they leave the window. ` +
          "Run Redis with appendonly yes and maxmemory-policy noeviction.",
      );
    }
    knownSince = since;
  };
  const tell = (message: string) => {
    try {
      warn(message);
    } catch {
      // A logging hook must not change an answer.
    }
  };

  client.on("ready", () => {
    marker(markerKey)
      .then((reply) => {
        const [since, now] = reply as [number, number];
        noteSince(Number(since), Number(now));
      })
      .catch(() => undefined);
    client
      .info("memory")
      .then((info) => {
        const maxmemory = /^maxmemory:(\d+)/m.exec(info)?.[1];
        const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
        if (maxmemory !== undefined && Number(maxmemory) > 0 && policy !== undefined && policy !== "noeviction") {
          tell(
            `Redis at ${where} may evict keys (maxmemory ${maxmemory} bytes, maxmemory-policy ${policy}): an evicted nonce could be replayed. ` +
              "Set maxmemory-policy noeviction (a full Redis then refuses new nonces, and so requests, rather than forgetting old ones).",
          );
        }
      })
      .catch(() => undefined); // INFO may be disabled (managed Redis): nothing to check then
  });

  return {
    perAppCapacity,
    markerKey,
    async useOnce(appKey, nonce, expiresAtMs, nowMs, timestampMs) {
      const ttlMs = Math.ceil(expiresAtMs - nowMs);
      // Already outside the window: the timestamp check refuses any replay, nothing to keep.
      if (!(ttlMs > 0)) return "fresh";
      const tag = `${prefix}{${appKey}}`;
      const timestampSeconds = timestampMs === undefined || !Number.isFinite(timestampMs) ? "" : Math.floor(timestampMs / 1000);
      try {
        const reply = (await useNonce(markerKey, `${tag}:${nonce}`, `${tag}`, ttlMs, perAppCapacity, nonce, Math.floor(nowMs), timestampSeconds)) as [string, number, number];
        const [answer, since, now] = reply;
        noteSince(Number(since), Number(now));
        return answer === "fresh" || answer === "reused" || answer === "full" || answer === "forgotten" ? answer : "unavailable";
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
