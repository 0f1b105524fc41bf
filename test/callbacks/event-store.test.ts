import { describe, expect, it } from "vitest";
import { CallbackConfigError, createMemoryEventStore } from "../../src/callbacks/index.js";

describe("the memory event store", () => {
  it("claims a new id, reports it busy while handled, and seen once complete", () => {
    const store = createMemoryEventStore();
    expect(store.claim("evt_a")).toBe("claimed");
    expect(store.claim("evt_a")).toBe("busy");
    store.complete("evt_a");
    expect(store.claim("evt_a")).toBe("seen");
    expect(store.has("evt_a")).toBe(true);
  });

  it("lets a released id be claimed again", () => {
    const store = createMemoryEventStore();
    store.claim("evt_a");
    store.release("evt_a");
    expect(store.has("evt_a")).toBe(false);
    expect(store.claim("evt_a")).toBe("claimed");
  });

  it("forgets the oldest handled ids beyond its capacity", () => {
    const store = createMemoryEventStore({ capacity: 2 });
    for (const id of ["evt_1", "evt_2", "evt_3"]) {
      store.claim(id);
      store.complete(id);
    }
    expect(store.size).toBe(2);
    expect([store.has("evt_1"), store.has("evt_2"), store.has("evt_3")]).toEqual([false, true, true]);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses capacity %s", (capacity) => {
    expect(() => createMemoryEventStore({ capacity })).toThrow(CallbackConfigError);
  });
});
