// Deduplication of callback events on their id (DESIGN item 8): delivery is at least once, so
// the same event may arrive again (with a fresh signature) after a lost acknowledgement, or
// twice at once. An event id is claimed while its handler runs, remembered once handled, and
// released if handling failed so the platform's next retry is handled.
import { CallbackConfigError } from "./errors.js";

/** "claimed": handle it now. "seen": already handled. "busy": another delivery is handling it. */
export type EventClaim = "claimed" | "seen" | "busy";

/** Where handled event ids are kept. May be async, so a shared store (Redis, a table) fits. */
export interface EventStore {
  /** Claims the id for handling unless it was handled or is being handled. */
  claim(eventId: string): EventClaim | Promise<EventClaim>;
  /** Marks a claimed id handled; later deliveries of it are "seen". */
  complete(eventId: string): void | Promise<void>;
  /** Gives a claimed id up after handling failed; the next delivery is "claimed" again. */
  release(eventId: string): void | Promise<void>;
}

export interface MemoryEventStoreOptions {
  /** Handled ids remembered; the oldest is forgotten beyond this. Default 100 000. */
  capacity?: number;
}

export interface MemoryEventStore extends EventStore {
  claim(eventId: string): EventClaim;
  complete(eventId: string): void;
  release(eventId: string): void;
  /** Whether the id was handled (and is still remembered). */
  has(eventId: string): boolean;
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
  const handled = new Set<string>(); // insertion order = age
  const inProgress = new Set<string>();

  return {
    claim(eventId) {
      if (handled.has(eventId)) return "seen";
      if (inProgress.has(eventId)) return "busy";
      inProgress.add(eventId);
      return "claimed";
    },
    complete(eventId) {
      inProgress.delete(eventId);
      handled.delete(eventId);
      handled.add(eventId);
      while (handled.size > capacity) {
        const oldest = handled.values().next().value;
        if (oldest === undefined) break;
        handled.delete(oldest);
      }
    },
    release(eventId) {
      inProgress.delete(eventId);
    },
    has: (eventId) => handled.has(eventId),
    get size() {
      return handled.size;
    },
    capacity,
  };
}
