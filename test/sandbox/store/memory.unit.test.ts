// The store conformance suite against the in-memory store.
import { createMemoryStore, defaultFixtures } from "../../../src/sandbox/index.js";
import { storeConformance } from "./conformance.js";

storeConformance("memory", async (quotas) => {
  const records = createMemoryStore(defaultFixtures(), quotas);
  return { records, close: () => records.close() };
});
