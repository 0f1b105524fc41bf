// Used nonces in PostgreSQL, shared by every instance on the database: a nonce recorded by one
// is refused by all (DESIGN item 6). One statement per request: the insert succeeds for a new
// nonce or one whose record has expired, and does nothing for one still recorded. Lifetimes run
// on the database server's clock (as the Redis store's run on Redis's), so an instance whose
// clock is ahead cannot shorten them for the others. Expired rows are deleted by each instance
// now and then; the database keeps them across restarts, so nothing is forgotten. It fails closed like the Redis store: a database
// that cannot be reached answers "unavailable" and the request is refused (100006), and an app
// holding its share answers "full". The share is counted from the last sweep plus this
// instance's inserts since, so it bounds one app's rows, not to the row.
import type { NonceStore, NonceUse } from "../../../signing/index.js";
import type { Database } from "./connection.js";

export interface PostgresNonceStoreOptions {
  database: Database;
  /** Most nonces one app key may hold at once. Default 200 000. */
  perAppCapacity?: number;
  /** How often expired nonces are deleted and the shares counted. Default 10 000 ms. */
  sweepIntervalMs?: number;
}

export interface PostgresNonceStore extends NonceStore {
  readonly kind: "postgres";
  useOnce(appKey: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<NonceUse>;
  /** Deletes expired nonces and counts each app's (useOnce does this now and then). */
  sweep(): Promise<void>;
  readonly perAppCapacity: number;
}

export function createPostgresNonceStore(options: PostgresNonceStoreOptions): PostgresNonceStore {
  const { database } = options;
  const perAppCapacity = options.perAppCapacity ?? 200_000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 10_000;
  let counts = new Map<string, number>();
  let lastSweep = Number.NEGATIVE_INFINITY;
  let sweeping: Promise<void> | undefined;

  async function sweep(): Promise<void> {
    await database.query("DELETE FROM nonces WHERE expires_at <= clock_timestamp()");
    const rows = await database.query<{ app_key: string; held: string }>("SELECT app_key, count(*) AS held FROM nonces GROUP BY app_key");
    counts = new Map(rows.map((row) => [row.app_key, Number(row.held)]));
  }

  return {
    kind: "postgres",
    perAppCapacity,
    sweep,
    async useOnce(appKey, nonce, expiresAtMs, nowMs) {
      // Already outside the window: the timestamp check refuses any replay, nothing to keep.
      if (!(expiresAtMs > nowMs)) return "fresh";
      if (nowMs - lastSweep >= sweepIntervalMs && sweeping === undefined) {
        lastSweep = nowMs;
        sweeping = sweep()
          .catch(() => undefined)
          .finally(() => (sweeping = undefined));
      }
      if ((counts.get(appKey) ?? 0) >= perAppCapacity) return "full";
      try {
        const rows = await database.query(
          `INSERT INTO nonces (app_key, nonce, expires_at) VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3 / 1000.0))
           ON CONFLICT (app_key, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE nonces.expires_at <= clock_timestamp()
           RETURNING 1 AS fresh`,
          [appKey, nonce, Math.ceil(expiresAtMs - nowMs)],
        );
        if (rows.length === 0) return "reused";
        counts.set(appKey, (counts.get(appKey) ?? 0) + 1);
        return "fresh";
      } catch {
        return "unavailable";
      }
    },
  };
}
