// The faults in PostgreSQL (faults/store.ts), shared by every instance: a fault set through one
// meets a request on any, each use taken once, oldest first. Adding and taking hold the faults'
// lock, so concurrent requests take uses in order and a scope's bound is counted exactly. A
// request first asks whether any fault is armed at all, and that answer comes with the clock
// offset every request reads anyway (armedFaults), so with no fault set a request costs no query.
import { faultQuotaError, KEPT_FAULT_HITS, MAX_FAULTS_PER_APP, type FaultHitRecord, type FaultRecord } from "../../faults/table.js";
import type { FaultStore } from "../../faults/store.js";
import { decodeRecord, encodeRecord } from "./codec.js";
import type { Database, Session } from "./connection.js";

type Row = { record: string };

export interface PostgresFaultStore extends FaultStore {
  /** What the last look said: some fault has uses left (set by the per-request read, and by add). */
  armed: boolean;
}

async function scopeCount(session: Session, appKey: string | null): Promise<number> {
  const [row] = await session.query<{ held: string }>("SELECT count(*) AS held FROM faults WHERE app_key IS NOT DISTINCT FROM $1", [appKey]);
  return Number(row?.held ?? 0);
}

export function createPostgresFaultStore(database: Database): PostgresFaultStore {
  const store: PostgresFaultStore = {
    armed: true,
    async add(input, now) {
      const fault = await database.transaction("faults", async (session) => {
        if ((await scopeCount(session, input.appKey)) >= MAX_FAULTS_PER_APP) {
          const spent = await session.query("DELETE FROM faults WHERE fault_id = (SELECT fault_id FROM faults WHERE app_key IS NOT DISTINCT FROM $1 AND remaining = 0 ORDER BY seq LIMIT 1) RETURNING 1 AS gone", [input.appKey]);
          if (spent.length === 0) throw faultQuotaError(input.appKey);
        }
        const [id] = await session.query<{ value: string }>("SELECT nextval('seq_fault') AS value");
        const created: FaultRecord = { ...input, faultId: `flt_${id!.value}`, remaining: input.times, createTime: now, hits: [] };
        await session.query("INSERT INTO faults (fault_id, app_key, operation_id, remaining, record) VALUES ($1, $2, $3, $4, $5::jsonb)", [
          created.faultId,
          created.appKey,
          created.operationId,
          created.remaining,
          encodeRecord(created),
        ]);
        return created;
      });
      store.armed = true;
      return fault;
    },
    async list(filter = {}) {
      const rows = await database.query<Row>(
        "SELECT record::text AS record FROM faults WHERE ($1::text IS NULL OR operation_id = $1) AND ($2::text IS NULL OR app_key IS NULL OR app_key = $2) ORDER BY seq",
        [filter.operationId ?? null, filter.appKey ?? null],
      );
      return rows.map((row) => decodeRecord<FaultRecord>(row.record));
    },
    async delete(faultId) {
      const [row] = await database.query<Row>("DELETE FROM faults WHERE fault_id = $1 RETURNING record::text AS record", [faultId]);
      return row === undefined ? undefined : decodeRecord<FaultRecord>(row.record);
    },
    async take(operationId, appKey, hit) {
      if (!store.armed) return undefined;
      return database.transaction("faults", async (session) => {
        const [row] = await session.query<Row>(
          "SELECT record::text AS record FROM faults WHERE remaining > 0 AND operation_id = $1 AND (app_key IS NULL OR app_key = $2) ORDER BY seq LIMIT 1",
          [operationId, appKey ?? null],
        );
        if (row === undefined) return undefined;
        const fault = decodeRecord<FaultRecord>(row.record);
        fault.remaining -= 1;
        fault.hits = [...fault.hits, hit].slice(-KEPT_FAULT_HITS);
        await session.query("UPDATE faults SET remaining = $2, record = $3::jsonb WHERE fault_id = $1", [fault.faultId, fault.remaining, encodeRecord(fault)]);
        return fault;
      });
    },
    async finishHit(faultId, hit) {
      await database.transaction("faults", async (session) => {
        const [row] = await session.query<Row>("SELECT record::text AS record FROM faults WHERE fault_id = $1", [faultId]);
        if (row === undefined) return;
        const fault = decodeRecord<FaultRecord>(row.record);
        const same = (kept: FaultHitRecord) => kept.time === hit.time && kept.method === hit.method && kept.path === hit.path && kept.appKey === hit.appKey && kept.status === null;
        const index = fault.hits.findLastIndex(same);
        if (index < 0) return;
        fault.hits[index] = hit;
        await session.query("UPDATE faults SET record = $2::jsonb WHERE fault_id = $1", [faultId, encodeRecord(fault)]);
      });
    },
    hasActive: () => store.armed,
    async clear(appKey) {
      if (appKey !== undefined) {
        await database.query("DELETE FROM faults WHERE app_key = $1", [appKey]);
        return;
      }
      await database.transaction("faults", async (session) => {
        await session.query("TRUNCATE faults");
        await session.query("ALTER SEQUENCE seq_fault RESTART");
      });
    },
  };
  return store;
}
