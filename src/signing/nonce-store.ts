// Replay protection: a nonce may be used once per app key while its timestamp is inside the
// window (DESIGN item 6). The verifier asks the store to remember each accepted nonce for a
// fixed lifetime from acceptance, two windows and a second (rules.ts): long enough that no
// instance sharing the store, whatever its clock says within a window of the others, can still
// accept the timestamp once the nonce is gone.
//
// The memory store is bounded and fails closed: when full it answers "full" rather than
// forgetting an unexpired nonce, because forgetting one would let that request be replayed.
// A store that knows its memory began at some moment (a process restart, a Redis that lost its
// data) answers "forgotten" for requests dated before then: it cannot tell whether their
// nonces were used.
import { SigningInputError } from "./errors.js";

export type NonceUse = "fresh" | "reused" | "full" | "unavailable" | "forgotten";

/**
 * Records nonces. useOnce answers "fresh" (and records the nonce until expiresAtMs),
 * "reused" (already recorded for this app key and not expired), "full" (the store, or this app's
 * share of it, cannot record more), "unavailable" (a shared store cannot be reached) or
 * "forgotten" (the request's timestamp, when given, is older than the store's memory: a
 * restart or data loss may have dropped its nonce). The caller refuses all but "fresh" rather
 * than risk a replay. May be async so a shared store (Redis) can implement it.
 */
export interface NonceStore {
  /**
   * @param expiresAtMs until when to remember the nonce, on the clock of nowMs
   * @param nowMs the verifier's clock
   * @param timestampMs the request's X-Timestamp in epoch milliseconds; stores that can lose
   *   their memory compare it with the moment their memory began
   */
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number, timestampMs?: number): NonceUse | Promise<NonceUse>;
}

export interface MemoryNonceStoreOptions {
  /** Most nonces held at once. Default 500 000 (about 45 MB at most with UUID nonces). */
  capacity?: number;
  /**
   * Most nonces one app key may hold at once, so that one busy (or hostile) app cannot use up
   * the capacity every other app shares. Default: the whole capacity. A server with N apps
   * that must never starve one of them sets capacity / N.
   */
  perAppCapacity?: number;
  /**
   * The moment (epoch ms, on the verifier's clock) this store's memory began, e.g. the server's
   * start: requests dated before that second are answered "forgotten", because a process that
   * restarted lost the nonces it had and could otherwise accept their replays for up to a
   * window. Clients whose clock is d seconds behind are refused for d seconds after it. Default:
   * none (a restarted process accepts such replays; see docs/signing.md).
   */
  forgottenBeforeMs?: number;
}

export interface MemoryNonceStore extends NonceStore {
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number, timestampMs?: number): NonceUse;
  /** Drops every nonce whose expiry second has passed (useOnce does this itself). */
  prune(nowMs: number): void;
  /** Nonces held, including expired ones of the current second not yet dropped. */
  readonly size: number;
  readonly capacity: number;
  readonly perAppCapacity: number;
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
 * A bounded in-process nonce store, laid out for a server under load, where every signed
 * request leaves a nonce behind for its lifetime (601 s with the 300 s window):
 *
 *   - nonces are kept per app key, as the header strings themselves (no key string is built per
 *     request), with their expiry in whole seconds relative to the first one stored (a small
 *     integer, so no heap number per entry): about 90 bytes per UUID nonce;
 *   - expiries are not monotone in arrival order (a timestamp may lie up to the window before or
 *     after the clock), so each entry is filed in a one-second bucket by its expiry, and pruning
 *     drops whole buckets once passed, walking forward from the oldest one not yet dropped (or
 *     one pass over the buckets when the clock jumps far ahead). Every entry is dropped once:
 *     amortised O(1) per insertion.
 */
export function createMemoryNonceStore(options: MemoryNonceStoreOptions = {}): MemoryNonceStore {
  const capacity = requirePositiveInteger("capacity", options.capacity ?? 500_000);
  const perAppCapacity = Math.min(capacity, requirePositiveInteger("perAppCapacity", options.perAppCapacity ?? capacity));
  const memorySecond = options.forgottenBeforeMs === undefined ? undefined : Math.floor(requireFinite("forgottenBeforeMs", options.forgottenBeforeMs) / 1000);
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

  function useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number, timestampMs?: number): NonceUse {
    requireFinite("expiresAtMs", expiresAtMs);
    requireFinite("nowMs", nowMs);
    // Whole seconds, as X-Timestamp is: a request signed after the memory began is never refused.
    if (memorySecond !== undefined && timestampMs !== undefined && Math.floor(requireFinite("timestampMs", timestampMs) / 1000) < memorySecond) return "forgotten";
    prune(nowMs);
    let nonces = byApp.get(appKey);
    const stored = nonces?.get(nonce);
    if (stored !== undefined && !expired(stored, nowMs)) return "reused";
    // Already outside the window: the timestamp check refuses any replay, nothing to keep.
    if (expiresAtMs <= nowMs) return "fresh";
    if (stored === undefined && (size >= capacity || (nonces?.size ?? 0) >= perAppCapacity)) return "full";
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
    prune,
    get size() {
      return size;
    },
    capacity,
    perAppCapacity,
  };
}
