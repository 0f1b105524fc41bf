import { describe, expect, it } from "vitest";
import { CallbackConfigError, createMemoryEventStore } from "../../src/callbacks/index.js";

const LEASE = 60_000;

describe("the memory event store", () => {
  it("claims a new id, reports it busy while handled, and seen once complete", () => {
    const store = createMemoryEventStore();
    expect(store.claim("evt_a", LEASE)).toBe("claimed");
    expect(store.claim("evt_a", LEASE)).toBe("busy");
    store.complete("evt_a");
    expect(store.claim("evt_a", LEASE)).toBe("seen");
    expect(store.has("evt_a")).toBe(true);
  });

  it("lets a released id be claimed again", () => {
    const store = createMemoryEventStore();
    store.claim("evt_a", LEASE);
    store.release("evt_a");
    expect(store.has("evt_a")).toBe(false);
    expect(store.claim("evt_a", LEASE)).toBe("claimed");
  });

  it("forgets the oldest handled ids beyond its capacity", () => {
    const store = createMemoryEventStore({ capacity: 2 });
    for (const id of ["evt_1", "evt_2", "evt_3"]) {
      store.claim(id, LEASE);
      store.complete(id);
    }
    expect(store.size).toBe(2);
    expect([store.has("evt_1"), store.has("evt_2"), store.has("evt_3")]).toEqual([false, true, true]);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses capacity %s", (capacity) => {
    expect(() => createMemoryEventStore({ capacity })).toThrow(CallbackConfigError);
  });

  it("lets a claim lapse after its lease, so a handler that never finishes does not hold the event forever", () => {
    let clock = 1_000_000;
    const store = createMemoryEventStore({ now: () => clock });
    expect(store.claim("evt_a", LEASE)).toBe("claimed");
    clock += LEASE - 1;
    expect(store.claim("evt_a", LEASE)).toBe("busy");
    clock += 1;
    expect(store.claim("evt_a", LEASE)).toBe("claimed");
    expect(store.claim("evt_a", LEASE)).toBe("busy");
    store.complete("evt_a");
    expect(store.claim("evt_a", LEASE)).toBe("seen");
  });

  it("keeps no more live claims than it holds, dropping lapsed ones", () => {
    let clock = 0;
    const store = createMemoryEventStore({ capacity: 2, now: () => clock });
    store.claim("evt_1", 10);
    store.claim("evt_2", 10);
    clock = 10;
    expect(store.inProgress).toBe(0);
    store.claim("evt_3", 10);
    expect(store.inProgress).toBe(1);
  });

  it.each([0, -5, Number.NaN, undefined])("refuses a lease of %s", (leaseMs) => {
    const store = createMemoryEventStore();
    expect(() => store.claim("evt_a", leaseMs as number)).toThrow(/leaseMs must be a positive number/);
  });
});
