// Where the faults live: with the sandbox's records (DESIGN item 17), so that with several
// instances on one database a fault set through one meets requests on any, each use taken once.
// The memory store keeps a FaultTable (table.ts); the PostgreSQL store a table of its own
// (store/postgres/faults.ts). Both answer the same, in the same order: oldest first, one use
// per accepted request, at most MAX_FAULTS_PER_APP per scope.
import { FaultTable, type FaultHitRecord, type FaultRecord, type NewFault } from "./table.js";

export interface FaultFilter {
  appKey?: string;
  operationId?: string;
}

export interface FaultStore {
  /** Arms a fault; past the bound the oldest spent fault of its scope makes room, else 100018. */
  add(input: NewFault, now: number): Promise<FaultRecord>;
  /** Oldest first: the order in which they meet requests. */
  list(filter?: FaultFilter): Promise<FaultRecord[]>;
  delete(faultId: string): Promise<FaultRecord | undefined>;
  /** The oldest active fault a request of `operationId` (of app `appKey`; undefined on the key-based interface) meets, with one use taken and the hit recorded. */
  take(operationId: string, appKey: string | undefined, hit: FaultHitRecord): Promise<FaultRecord | undefined>;
  /** The request the fault met finished: its hit as it ended (status, code). */
  finishHit(faultId: string, hit: FaultHitRecord): Promise<void>;
  /** One app's faults (not those for every app), or all of them; ids start again only when all go. */
  clear(appKey?: string): Promise<void>;
  /** Whether some fault may still meet a request (false lets a request skip looking; a shared store answers what it last read). */
  hasActive(): boolean;
}

/** The memory store's faults: the fault table itself, whose hits are the very objects the step fills in. */
export function createMemoryFaultStore(): FaultStore {
  const table = new FaultTable();
  return {
    add: async (input, now) => table.add(input, now),
    list: async (filter = {}) => [...table.list(filter)],
    delete: async (faultId) => table.delete(faultId),
    take: async (operationId, appKey, hit) => table.take(operationId, appKey, hit),
    // The step fills in the hit object the table holds; a hit given as another object replaces it.
    async finishHit(faultId, hit) {
      const fault = table.get(faultId);
      const index = fault?.hits.findLastIndex((kept) => kept !== hit && kept.status === null && kept.time === hit.time && kept.method === hit.method && kept.path === hit.path && kept.appKey === hit.appKey) ?? -1;
      if (fault && index >= 0) fault.hits[index] = hit;
    },
    clear: async (appKey) => table.clear(appKey),
    hasActive: () => table.hasActive(),
  };
}
