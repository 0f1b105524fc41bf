// The sandbox's nonce store: the same contract and answers as createMemoryNonceStore of
// src/signing (fresh / reused / full, fail closed when full, entries dropped once their expiry
// passes), laid out for a sandbox under load, where every signed request leaves a nonce behind
// for the 301 s of its window:
//
//   - nonces are kept per app key, as the header strings themselves (no key string is built
//     per request), with their expiry in whole seconds relative to the first one stored (a
//     small integer, so no heap number per entry);
//   - expiry buckets of one second hold (app map, nonce) pairs, dropped whole once passed.
//
// About 90 bytes per nonce with UUID nonces (measured: docs/performance.md), so the default
// capacity of 1,000,000 is some 90 MB at most; that is reached only by more than 3,300 signed
// requests per second kept up for five minutes, and then the store answers "full" (the
// sandbox's 100006 with Retry-After) rather than forget a nonce that may still be replayed.
import type { NonceStore, NonceUse } from "../signing/index.js";

export const SANDBOX_NONCE_CAPACITY = 1_000_000;

export interface SandboxNonceStore extends NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): NonceUse;
  /** Nonces held, including expired ones of the current second not yet dropped. */
  readonly size: number;
  readonly capacity: number;
}

function requireFinite(name: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new RangeError(`${name} must be a finite number of epoch milliseconds, got ${String(value)}`);
}

export function createSandboxNonceStore(capacity = SANDBOX_NONCE_CAPACITY): SandboxNonceStore {
  if (!Number.isSafeInteger(capacity) || capacity <= 0) throw new RangeError(`capacity must be a positive whole number, got ${capacity}`);
  const byApp = new Map<string, Map<string, number>>();
  // Expiry second → [nonces of an app, nonce, nonces of an app, nonce, ...].
  const buckets = new Map<number, (Map<string, number> | string)[]>();
  let size = 0;
  // Stored expiries are (second - base): small integers.
  let base: number | undefined;
  // The smallest expiry second that may still have a bucket.
  let oldest: number | undefined;

  const expired = (stored: number, nowMs: number) => (stored + (base ?? 0)) * 1000 <= nowMs;

  function dropBucket(second: number, entries: (Map<string, number> | string)[], nowMs: number): void {
    buckets.delete(second);
    for (let i = 0; i < entries.length; i += 2) {
      const nonces = entries[i] as Map<string, number>;
      const nonce = entries[i + 1] as string;
      // It may have been stored again, with a later expiry, after it expired here.
      const stored = nonces.get(nonce);
      if (stored !== undefined && expired(stored, nowMs)) {
        nonces.delete(nonce);
        size--;
      }
    }
  }

  function prune(nowMs: number): void {
    // Every entry of a bucket below this second has expired (as in the signing module's store,
    // the bucket of the current second waits for the next one: a clock that steps back a
    // little still finds its nonces).
    const limit = Math.floor(nowMs / 1000);
    if (oldest === undefined || oldest >= limit) return;
    if (limit - oldest > buckets.size) {
      for (const [second, entries] of buckets) if (second < limit) dropBucket(second, entries, nowMs);
    } else {
      for (let second = oldest; second < limit; second++) {
        const entries = buckets.get(second);
        if (entries) dropBucket(second, entries, nowMs);
      }
    }
    oldest = limit;
  }

  function useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): NonceUse {
    requireFinite("expiresAtMs", expiresAtMs);
    requireFinite("nowMs", nowMs);
    prune(nowMs);
    let nonces = byApp.get(appKey);
    const stored = nonces?.get(nonce);
    if (stored !== undefined && !expired(stored, nowMs)) return "reused";
    // Already outside the window: the timestamp check refuses any replay, nothing to keep.
    if (expiresAtMs <= nowMs) return "fresh";
    if (stored === undefined && size >= capacity) return "full";
    // Whole seconds (the signature check's expiries are); a fraction is kept to the end of its second.
    const second = Math.ceil(expiresAtMs / 1000);
    base ??= second;
    if (!nonces) {
      nonces = new Map();
      byApp.set(appKey, nonces);
    }
    if (stored === undefined) size++;
    nonces.set(nonce, second - base);
    const bucket = buckets.get(second);
    if (bucket) bucket.push(nonces, nonce);
    else buckets.set(second, [nonces, nonce]);
    // The clock may have stepped back: keep the walk start at or below every live bucket.
    if (oldest === undefined || second < oldest) oldest = second;
    return "fresh";
  }

  return {
    useOnce,
    get size() {
      return size;
    },
    capacity,
  };
}
