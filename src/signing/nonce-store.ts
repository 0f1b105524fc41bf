// Replay protection: a nonce may be used once per app key while its timestamp is inside the
// window (DESIGN item 6). The store only has to remember a nonce until the request's timestamp
// leaves the window; after that the window check refuses the replay on its own.
//
// The memory store is bounded and fails closed: when full it answers "full" rather than
// forgetting an unexpired nonce, because forgetting one would let that request be replayed.
import { SigningInputError } from "./errors.js";

export type NonceUse = "fresh" | "reused" | "full";

/**
 * Records nonces. useOnce answers "fresh" (and records the nonce until expiresAtMs),
 * "reused" (already recorded for this app key and not expired) or "full" (cannot record).
 * May be async so a shared store (e.g. Redis SET NX PX) can implement it.
 */
export interface NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): NonceUse | Promise<NonceUse>;
}

export interface MemoryNonceStoreOptions {
  /** Most nonces held at once. Default 500 000 (roughly 75 MB at worst). */
  capacity?: number;
  /** Width of the expiry buckets in ms; an expired nonce is dropped at most this late. Default 1000. */
  bucketMs?: number;
}

export interface MemoryNonceStore extends NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): NonceUse;
  /** Drops every nonce whose expiry bucket lies wholly before nowMs (useOnce does this itself). */
  prune(nowMs: number): void;
  /** Nonces held, including expired ones of the current bucket not yet dropped. */
  readonly size: number;
  readonly capacity: number;
}

function requirePositiveInteger(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new SigningInputError(field, `${field} must be a positive whole number, got ${String(value)}`);
  }
  return value;
}

function requireFinite(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new SigningInputError(field, `${field} must be a finite number of epoch milliseconds, got ${String(value)}`);
  }
  return value;
}

/**
 * A bounded in-process nonce store.
 *
 * Pruning: expiries are not monotone in arrival order (a request's timestamp may lie up to the
 * window before or after the clock), so a plain insertion-ordered queue would keep expired
 * entries stuck behind younger ones. Instead each entry is filed in a time bucket by its
 * expiry; pruning drops whole buckets whose end has passed, walking bucket indices forward
 * from the oldest one not yet dropped. Every entry is dropped once, so the cost is amortised
 * O(1) per insertion, plus one step per bucket width of clock time (or one pass over the
 * buckets when the clock jumps far ahead).
 */
export function createMemoryNonceStore(options: MemoryNonceStoreOptions = {}): MemoryNonceStore {
  const capacity = requirePositiveInteger("capacity", options.capacity ?? 500_000);
  const bucketMs = requirePositiveInteger("bucketMs", options.bucketMs ?? 1000);

  const expiries = new Map<string, number>();
  const buckets = new Map<number, string[]>();
  // Smallest bucket index that may still hold entries; undefined while nothing was stored.
  let oldestBucket: number | undefined;

  function dropBucket(index: number, keys: string[], nowMs: number): void {
    buckets.delete(index);
    for (const key of keys) {
      // A key may have been stored again (with a later expiry) after it expired here.
      const expiresAtMs = expiries.get(key);
      if (expiresAtMs !== undefined && expiresAtMs <= nowMs) expiries.delete(key);
    }
  }

  function prune(nowMs: number): void {
    requireFinite("nowMs", nowMs);
    // Every expiry in a bucket below this index is < limit * bucketMs <= nowMs.
    const limit = Math.floor(nowMs / bucketMs);
    if (oldestBucket === undefined || oldestBucket >= limit) return;
    if (limit - oldestBucket > buckets.size) {
      for (const [index, keys] of buckets) if (index < limit) dropBucket(index, keys, nowMs);
    } else {
      for (let index = oldestBucket; index < limit; index++) {
        const keys = buckets.get(index);
        if (keys) dropBucket(index, keys, nowMs);
      }
    }
    oldestBucket = limit;
  }

  function useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): NonceUse {
    requireFinite("expiresAtMs", expiresAtMs);
    prune(nowMs);
    // Length-prefixed so no appKey/nonce pair can collide with another.
    const key = `${appKey.length}:${appKey}:${nonce}`;
    const known = expiries.get(key);
    if (known !== undefined && known > nowMs) return "reused";
    // Already outside the window: the timestamp check refuses any replay, nothing to keep.
    if (expiresAtMs <= nowMs) return "fresh";
    if (known === undefined && expiries.size >= capacity) return "full";

    expiries.set(key, expiresAtMs);
    const index = Math.floor(expiresAtMs / bucketMs);
    const bucket = buckets.get(index);
    if (bucket) bucket.push(key);
    else buckets.set(index, [key]);
    // The clock may have stepped back: keep the walk start at or below every live bucket.
    if (oldestBucket === undefined || index < oldestBucket) oldestBucket = index;
    return "fresh";
  }

  return {
    useOnce,
    prune,
    get size() {
      return expiries.size;
    },
    capacity,
  };
}
