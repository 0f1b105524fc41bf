// Where a callback sender keeps its deliveries: every event it must send, with its attempts, so
// that a delivery survives a restart of the server (at least once, DESIGN item 8). The sender
// saves a delivery when it is enqueued and after every attempt, and on start asks for the
// pending ones to resume them. One process's memory by default; a team plugs in its database
// (a table keyed by eventId, the delivery stored as JSON with int64 ids exact: stringifyExactJson).
import type { CallbackEventType } from "./callback-types.js";

export type MaybePromise<T> = T | Promise<T>;

export interface CallbackAttempt {
  /** 1 for the first attempt. */
  attempt: number;
  /** When the attempt started (the sender's clock, epoch ms). */
  time: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  /** The first bytes (RESPONSE_BODY_KEPT_BYTES) of a failed answer's body, as text; null when acknowledged or none. */
  responseBody: string | null;
  acknowledged: boolean;
  /** "manual" for a resend asked for by hand, "scheduled" for the first attempt and the retries. */
  trigger: "scheduled" | "manual";
  /** The signature headers sent (X-App-Key, X-Timestamp, X-Nonce, X-Sign); empty when nothing was sent. */
  headers: Record<string, string>;
}

/** One callback event and its delivery: the exact bytes sent on every attempt, and every attempt. */
export interface CallbackDelivery {
  /** The event id (`evt_…`), the same on every attempt: receivers dedupe on it. */
  eventId: string;
  type: CallbackEventType;
  appKey: string;
  /** notifyUrl (payments) or the app's callback URL (member cards); null when the app has none. */
  targetUrl: string | null;
  /** What the event is about, from its data, for finding deliveries. */
  tradeNo: string | null;
  applicationId: bigint | null;
  /** The exact JSON sent on every attempt. */
  body: string;
  /** When the event happened (epoch ms). */
  createTime: number;
  status: "pending" | "delivered" | "failed";
  attempts: CallbackAttempt[];
  /** When the next attempt is due (epoch ms), null when none is. */
  nextAttemptTime: number | null;
  failureReason: string | null;
}

/**
 * Durable storage of deliveries. Each method may be synchronous or return a promise. `save`
 * records a new delivery or its new state; a save that throws is logged and the sender goes on
 * (the delivery is still attempted), so a store outage delays durability, never a callback.
 */
export interface CallbackOutbox {
  save(delivery: CallbackDelivery): MaybePromise<void>;
  get(eventId: string): MaybePromise<CallbackDelivery | undefined>;
  /** Every delivery still pending, for the sender to resume after a restart. */
  pending(): MaybePromise<CallbackDelivery[]>;
  /**
   * For an outbox several senders share (instances of one server): called before each attempt;
   * answers the delivery as it is now (its attempts so far) once this sender holds it for the
   * attempt (a lease), or undefined when another sender holds it or it is no longer pending,
   * and the sender then leaves it. Without it, every pending delivery is this sender's.
   */
  claim?(delivery: CallbackDelivery): MaybePromise<CallbackDelivery | undefined>;
}

/** The default outbox: this process's memory. It holds the sender's own objects, so reads are synchronous. */
export interface MemoryCallbackOutbox extends CallbackOutbox {
  save(delivery: CallbackDelivery): void;
  get(eventId: string): CallbackDelivery | undefined;
  pending(): CallbackDelivery[];
  /** Every delivery, oldest first (a delivery log). */
  list(): CallbackDelivery[];
  /** Forgets every delivery. */
  clear(): void;
}

export function createMemoryCallbackOutbox(): MemoryCallbackOutbox {
  const deliveries = new Map<string, CallbackDelivery>();
  return {
    save: (delivery) => void deliveries.set(delivery.eventId, delivery),
    get: (eventId) => deliveries.get(eventId),
    pending: () => [...deliveries.values()].filter((delivery) => delivery.status === "pending"),
    list: () => [...deliveries.values()],
    clear: () => deliveries.clear(),
  };
}
