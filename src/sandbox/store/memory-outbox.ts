// The in-memory callback log: the kit's outbox (src/server/callback-outbox.ts) that keeps the
// sender's own delivery objects, plus what the sandbox reads it for (the control API's delivery
// log, the dashboard) and a reset per app. One process holds it, so a claim always succeeds
// while the delivery is there and pending; a delivery removed by a reset is let go.
import type { CallbackDelivery } from "../../server/index.js";
import type { CallbackLogFilter, SandboxCallbackLog } from "./types.js";

export function matchesDelivery(delivery: CallbackDelivery, filter: CallbackLogFilter): boolean {
  return (
    (filter.appKey === undefined || delivery.appKey === filter.appKey) &&
    (filter.eventId === undefined || delivery.eventId === filter.eventId) &&
    (filter.tradeNo === undefined || delivery.tradeNo === filter.tradeNo) &&
    (filter.applicationId === undefined || delivery.applicationId === filter.applicationId) &&
    (filter.status === undefined || delivery.status === filter.status)
  );
}

export interface MemoryCallbackLog extends SandboxCallbackLog {
  save(delivery: CallbackDelivery): void;
  get(eventId: string): CallbackDelivery | undefined;
  pending(): CallbackDelivery[];
  /** Forgets one app's deliveries, or every one. */
  remove(appKey?: string): void;
}

export function createMemoryCallbackLog(): MemoryCallbackLog {
  // Insertion order is creation order: the newest last.
  const deliveries = new Map<string, CallbackDelivery>();
  // Removed by a reset: an attempt in flight then saves nothing back.
  const removed = new Set<string>();
  return {
    save(delivery) {
      if (!removed.has(delivery.eventId)) deliveries.set(delivery.eventId, delivery);
    },
    get: (eventId) => deliveries.get(eventId),
    pending: () => [...deliveries.values()].filter((delivery) => delivery.status === "pending"),
    claim: (delivery) => {
      const current = deliveries.get(delivery.eventId);
      return current?.status === "pending" ? current : undefined;
    },
    async list(filter = {}) {
      const matching = [...deliveries.values()].filter((delivery) => matchesDelivery(delivery, filter)).reverse();
      return filter.limit === undefined ? matching : matching.slice(0, filter.limit);
    },
    async release() {},
    async reopen(eventId) {
      const delivery = deliveries.get(eventId);
      if (!delivery) return `no callback event ${eventId}`;
      delivery.status = "pending";
      delivery.failureReason = null;
      return undefined;
    },
    remove(appKey) {
      for (const [eventId, delivery] of deliveries) {
        if (appKey !== undefined && delivery.appKey !== appKey) continue;
        deliveries.delete(eventId);
        removed.add(eventId);
      }
    },
  };
}
