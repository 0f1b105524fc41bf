// The callback outbox and delivery log in PostgreSQL, shared by every instance. A delivery is
// inserted by the transaction that caused it (the payment, the review), leased to the instance
// that committed it, which attempts it at once. Before each attempt the sender claims it: one
// UPDATE that succeeds only for the lease's holder or when no one holds it (the lease ended:
// its instance stopped), so each attempt is made by one instance. After an attempt the holder
// keeps the lease until the next attempt is due plus leaseMs, and its own timer makes it; an
// instance that stops lets go (release), one that crashes loses its leases when they end. Every
// instance polls (pending()) for deliveries due that no one holds, claiming them with
// FOR UPDATE SKIP LOCKED, so two pollers never take the same one.
//
// An app with a `mop listen` session (listeners) has its deliveries attempted by the instance
// that holds the session: no other instance claims them, one that holds one lets it go, and
// the listening instance may take one another instance only waits on (no attempt in flight).
//
// Times: nextAttemptTime is sandbox time (the shared clock offset applies); leases are the
// database server's time, so instances with skewed clocks agree on them.
import type { CallbackDelivery } from "../../../server/index.js";
import type { SandboxClock } from "../../clock.js";
import type { CallbackLogFilter, SandboxCallbackLog } from "../types.js";
import { decodeRecord, encodeRecord } from "./codec.js";
import type { Database, Session } from "./connection.js";

export interface PostgresCallbackLogOptions {
  database: Database;
  clock: SandboxClock;
  instanceId: string;
  leaseMs: number;
  /** How far ahead pending() looks (one poll interval): a delivery due within it is scheduled now. */
  horizonMs: number;
}

export interface PostgresCallbackLog extends SandboxCallbackLog {
  /** In the transaction that caused it: the new delivery, leased to this instance. */
  insert(session: Session, delivery: CallbackDelivery): Promise<void>;
  /**
   * Before a manual resend: back to pending and this instance's, unless an attempt is in flight
   * on another instance (then why not).
   */
  reopen(eventId: string): Promise<string | undefined>;
}

type Row = { record: string; next_attempt_time?: string | null };

function decodeDelivery(row: Row): CallbackDelivery {
  const delivery = decodeRecord<CallbackDelivery>(row.record);
  // The column is the truth for when it is due (a poll may have moved it).
  if (row.next_attempt_time !== undefined) delivery.nextAttemptTime = row.next_attempt_time === null ? null : Number(row.next_attempt_time);
  return delivery;
}

const RETURNING = "RETURNING record::text AS record, next_attempt_time";

export function createPostgresCallbackLog(options: PostgresCallbackLogOptions): PostgresCallbackLog {
  const { database, clock, instanceId: me, leaseMs } = options;
  /** ms from now until the delivery is due (sandbox time), then the lease's own length. */
  const waitingLeaseMs = (nextAttemptTime: number | null) => Math.max(0, (nextAttemptTime ?? clock.now()) - clock.now()) + leaseMs;
  const listened = (where: "here" | "elsewhere", table = "callback_deliveries") =>
    `EXISTS (SELECT 1 FROM listeners l WHERE l.app_key = ${table}.app_key AND l.expires_at > clock_timestamp() AND l.instance_id ${where === "here" ? "=" : "<>"} $2)`;
  /** Claimable by this instance ($2): no one else's live lease (or only a waiting one, when this instance holds the app's listener), and no listener elsewhere. */
  const free = (table = "callback_deliveries") =>
    `((${table}.lease_owner IS NULL OR ${table}.lease_owner = $2 OR ${table}.lease_until < clock_timestamp() OR (${table}.attempting_since IS NULL AND ${listened("here", table)})) AND NOT ${listened("elsewhere", table)})`;

  return {
    async insert(session, delivery) {
      const nextAttemptTime = delivery.nextAttemptTime ?? clock.now();
      await session.query(
        `INSERT INTO callback_deliveries (event_id, app_key, status, trade_no, application_id, next_attempt_time, lease_owner, lease_until, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(secs => $8 / 1000.0), $9::jsonb)`,
        [
          delivery.eventId,
          delivery.appKey,
          delivery.status,
          delivery.tradeNo,
          delivery.applicationId?.toString() ?? null,
          nextAttemptTime,
          me,
          leaseMs,
          encodeRecord({ ...delivery, nextAttemptTime }),
        ],
      );
    },

    async save(delivery) {
      const pending = delivery.status === "pending";
      await database.query(
        `UPDATE callback_deliveries SET status = $3, next_attempt_time = $4, record = $5::jsonb, attempting_since = NULL,
           lease_owner = CASE WHEN $6 THEN $2 ELSE NULL END,
           lease_until = CASE WHEN $6 THEN clock_timestamp() + make_interval(secs => $7 / 1000.0) ELSE NULL END
         WHERE event_id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())`,
        [delivery.eventId, me, delivery.status, delivery.nextAttemptTime, encodeRecord(delivery), pending, waitingLeaseMs(delivery.nextAttemptTime)],
      );
    },

    async get(eventId) {
      const [row] = await database.query<Row>("SELECT record::text AS record, next_attempt_time FROM callback_deliveries WHERE event_id = $1", [eventId]);
      return row === undefined ? undefined : decodeDelivery(row);
    },

    async pending() {
      const now = clock.now();
      const rows = await database.query<Row>(
        `WITH due AS (
           SELECT event_id FROM callback_deliveries
           WHERE status = 'pending' AND next_attempt_time <= $3 AND ${free()}
           ORDER BY next_attempt_time LIMIT 200
           FOR UPDATE SKIP LOCKED
         )
         UPDATE callback_deliveries AS d SET lease_owner = $2,
           lease_until = clock_timestamp() + make_interval(secs => (GREATEST(d.next_attempt_time - $1, 0) + $4) / 1000.0)
         FROM due WHERE d.event_id = due.event_id
         RETURNING d.record::text AS record, d.next_attempt_time`,
        [now, me, now + options.horizonMs, leaseMs],
      );
      return rows.map(decodeDelivery);
    },

    async claim(delivery) {
      const [row] = await database.query<Row>(
        `UPDATE callback_deliveries SET lease_owner = $2, lease_until = clock_timestamp() + make_interval(secs => $3 / 1000.0), attempting_since = clock_timestamp()
         WHERE event_id = $1 AND status = 'pending' AND ${free()}
         ${RETURNING}`,
        [delivery.eventId, me, leaseMs],
      );
      if (row !== undefined) return decodeDelivery(row);
      // Its app listens through another instance: let go of it, so that one takes it at once.
      await database.query(`UPDATE callback_deliveries SET lease_owner = NULL, lease_until = NULL WHERE event_id = $1 AND lease_owner = $2 AND ${listened("elsewhere")}`, [delivery.eventId, me]);
      return undefined;
    },

    async reopen(eventId) {
      const now = clock.now();
      const [row] = await database.query<{ reopened: boolean }>(
        `WITH target AS (SELECT event_id, COALESCE(status = 'pending' AND lease_owner IS DISTINCT FROM $2 AND lease_until >= clock_timestamp()
                                   AND attempting_since > clock_timestamp() - make_interval(secs => $3 / 1000.0), false) AS busy
                         FROM callback_deliveries WHERE event_id = $1 FOR UPDATE)
         UPDATE callback_deliveries AS d SET status = 'pending', next_attempt_time = $4, lease_owner = $2, attempting_since = NULL,
           lease_until = clock_timestamp() + make_interval(secs => $3 / 1000.0),
           record = jsonb_set(jsonb_set(jsonb_set(d.record, '{status}', '"pending"'), '{failureReason}', 'null'), '{nextAttemptTime}', to_jsonb($4::bigint))
         FROM target WHERE d.event_id = target.event_id AND NOT target.busy
         RETURNING true AS reopened`,
        [eventId, me, leaseMs, now],
      );
      if (row?.reopened) return undefined;
      const existing = await this.get(eventId);
      return existing === undefined ? `no callback event ${eventId}` : "an attempt is in flight on another instance; wait for its answer";
    },

    async list(filter: CallbackLogFilter = {}) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      const add = (column: string, value: unknown) => {
        values.push(value);
        conditions.push(`${column} = $${values.length}`);
      };
      if (filter.appKey !== undefined) add("app_key", filter.appKey);
      if (filter.eventId !== undefined) add("event_id", filter.eventId);
      if (filter.tradeNo !== undefined) add("trade_no", filter.tradeNo);
      if (filter.applicationId !== undefined) add("application_id", filter.applicationId.toString());
      if (filter.status !== undefined) add("status", filter.status);
      const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
      const limit = filter.limit === undefined ? "" : ` LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
      const rows = await database.query<Row>(`SELECT record::text AS record, next_attempt_time FROM callback_deliveries ${where} ORDER BY seq DESC${limit}`, values);
      return rows.map(decodeDelivery);
    },

    async release() {
      await database.query("UPDATE callback_deliveries SET lease_owner = NULL, lease_until = NULL, attempting_since = NULL WHERE lease_owner = $1", [me]);
    },
  };
}
