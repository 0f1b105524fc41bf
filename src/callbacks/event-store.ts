// Deduplication of callback events on their id (DESIGN item 8): delivery is at least once, so
// the same event may arrive again (with a fresh signature) after a lost acknowledgement, or
// twice at once. An event id is claimed while its handler runs, remembered once handled, and
// released if handling failed so the platform's next retry is handled. A claim is a lease: a
// handler that never finishes (a hung database call) holds the event only until the lease
// expires, and the next retry after that is handled instead of answered 409 forever.
import { CallbackConfigError } from "./errors.js";

/** "claimed": handle it now. "seen": already handled. "busy": another delivery is handling it. */
export type EventClaim = "claimed" | "seen" | "busy";

/** Where handled event ids are kept. May be async, so a shared store (Redis, a table) fits. */
export interface EventStore {
  /**
   * Claims the id for handling unless it was handled or is being handled. The claim lapses
   * after `leaseMs` (a shared store sets it as the key's expiry, e.g. Redis SET NX PX), so a
   * delivery after that claims it again.
   */
  claim(eventId: string, leaseMs: number): EventClaim | Promise<EventClaim>;
  /** Marks a claimed id handled; later deliveries of it are "seen". */
  complete(eventId: string): void | Promise<void>;
  /** Gives a claimed id up after handling failed; the next delivery is "claimed" again. */
  release(eventId: string): void | Promise<void>;
}

export interface MemoryEventStoreOptions {
  /** Handled ids remembered; the oldest is forgotten beyond this. Default 100 000. */
  capacity?: number;
  /** The clock leases are measured on, in epoch milliseconds. Default Date.now. */
  now?: () => number;
}

export interface MemoryEventStore extends EventStore {
  claim(eventId: string, leaseMs: number): EventClaim;
  complete(eventId: string): void;
  release(eventId: string): void;
  /** Whether the id was handled (and is still remembered). */
  has(eventId: string): boolean;
  /** Ids claimed and not yet completed, released or lapsed. */
  readonly inProgress: number;
  /** Handled ids remembered. */
  readonly size: number;
  readonly capacity: number;
}

/**
 * A bounded in-process event store. It forgets the oldest handled ids beyond `capacity`, so a
 * very late duplicate of a forgotten event would be handled again: receivers should still make
 * their handling idempotent (check the order's state; never move a status backwards). For
 * several processes, implement EventStore on shared storage.
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): MemoryEventStore {
  const capacity = options.capacity ?? 100_000;
  if (!Number.isSafeInteger(capacity) || capacity <= 0) {
    throw new CallbackConfigError("capacity", `capacity must be a positive whole number, got ${String(capacity)}`);
  }
  if (options.now !== undefined && typeof options.now !== "function") throw new CallbackConfigError("now", "now must be a function returning epoch milliseconds");
  const now = options.now ?? Date.now;
  const handled = new Set<string>(); // insertion order = age
  const leases = new Map<string, number>(); // event id -> when its claim lapses (epoch ms)

  /** Lapsed claims are dropped when met, and all of them once the map grows, so it stays bounded. */
  function dropLapsed(at: number): void {
    for (const [eventId, until] of leases) if (until <= at) leases.delete(eventId);
  }

  return {
    claim(eventId, leaseMs) {
      if (!(typeof leaseMs === "number" && leaseMs > 0)) throw new CallbackConfigError("leaseMs", `leaseMs must be a positive number of milliseconds, got ${String(leaseMs)}`);
      if (handled.has(eventId)) return "seen";
      const at = now();
      const until = leases.get(eventId);
      if (until !== undefined && until > at) return "busy";
      if (leases.size >= capacity) dropLapsed(at);
      leases.set(eventId, at + leaseMs);
      return "claimed";
    },
    complete(eventId) {
      leases.delete(eventId);
      handled.delete(eventId);
      handled.add(eventId);
      while (handled.size > capacity) {
        const oldest = handled.values().next().value;
        if (oldest === undefined) break;
        handled.delete(oldest);
      }
    },
    release(eventId) {
      leases.delete(eventId);
    },
    has: (eventId) => handled.has(eventId),
    get size() {
      return handled.size;
    },
    get inProgress() {
      dropLapsed(now());
      return leases.size;
    },
    capacity,
  };
}
