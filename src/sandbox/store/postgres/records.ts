// SandboxRecords in PostgreSQL, for a team: several sandbox instances share one database, and a
// restart loses nothing. Each transaction of an app holds that app's advisory lock (one at a
// time across every instance) and the tables' constraints hold besides: an app's outTradeNo,
// outRefundNo and openUserId unique, one refund per order; quotas are counted in app_usage by
// the database in the same transaction. Records are JSON documents (codec.ts). The fixtures
// are loaded once per database: the first instance loads them, each later one checks that its
// own are the same (by hash) and refuses to start otherwise.
import { createHash, randomBytes } from "node:crypto";
import type { SandboxClock } from "../../clock.js";
import type { SandboxFixtures } from "../../fixtures/load.js";
import { createAppGates } from "../app-locks.js";
import { createReferenceRecords } from "../reference.js";
import { checkTransactionApp, quotaError, StoreUnavailableError, type StoreQuotas } from "../rules.js";
import type {
  ClockOffsetStore,
  CustomerRecord,
  ListFilter,
  RecordReads,
  RecordsTransaction,
  SandboxRecords,
  SequenceName,
  TradeRecord,
} from "../types.js";
import { createPostgresCallbackLog } from "./callback-log.js";
import { createPostgresFaultStore } from "./faults.js";
import { decodeRecord, encodeRecord } from "./codec.js";
import type { Database, Session } from "./connection.js";
import { migrate } from "./migrations.js";

const SEQUENCES: Record<SequenceName, string> = {
  order: "seq_order",
  appUser: "seq_app_user",
  trade: "seq_trade",
  refund: "seq_refund",
  memberCard: "seq_member_card",
  application: "seq_application",
};

/** The tables an app's reset empties of its rows (nonces stay: a used nonce stays used). */
const APP_TABLES = ["customers", "orders", "trades", "refunds", "member_cards", "credit_applications", "callback_deliveries", "app_usage"] as const;

/** A StoreUnavailableError that says the fixtures differ: the instance must not start. */
export class FixturesMismatchError extends StoreUnavailableError {
  override readonly name = "FixturesMismatchError";
}

export interface PostgresRecordsOptions {
  database: Database;
  fixtures: SandboxFixtures;
  quotas: StoreQuotas;
  clock: SandboxClock;
  /** This instance's name in callback leases. */
  instanceId: string;
  /** How long a claimed callback attempt is this instance's before another may take it over. */
  leaseMs: number;
  /** Apply missing migrations on open (default) or refuse to start without them. */
  applyMigrations: boolean;
  /** How far ahead the callback log looks for deliveries due (the poll interval). */
  pollIntervalMs: number;
  /** The pool's size (connections at most). */
  poolSize: number;
}

/** The fixtures' fingerprint: the same data set (after the id range's filtering) gives the same hash. */
export function fixturesHash(fixtures: SandboxFixtures): string {
  return createHash("sha256").update(encodeRecord(fixtures)).digest("hex");
}

type Row = { record: string };

/** A listen session's registration lapses this long after its last renewal (every 5 s). */
const LISTENER_LEASE_MS = 15_000;
const decodeRows = <T>(rows: Row[]): T[] => rows.map((row) => decodeRecord<T>(row.record));
const decodeFirst = <T>(rows: Row[]): T | undefined => (rows[0] === undefined ? undefined : decodeRecord<T>(rows[0].record));

/** Reads through a session (a transaction's, which first takes the app's lock) or the pool. */
function readsOn(query: Session["query"], before: () => Promise<void> = async () => undefined): RecordReads {
  const run: Session["query"] = async (text, values) => {
    await before();
    return query(text, values);
  };
  return {
    customerByOpenUserId: async (appKey, openUserId) => decodeFirst(await run<Row>("SELECT record::text AS record FROM customers WHERE app_key = $1 AND open_user_id = $2", [appKey, openUserId])),
    customerByAppUserId: async (appKey, appUserId) => decodeFirst(await run<Row>("SELECT record::text AS record FROM customers WHERE app_key = $1 AND app_user_id = $2", [appKey, appUserId.toString()])),
    order: async (id) => decodeFirst(await run<Row>("SELECT record::text AS record FROM orders WHERE id = $1", [id.toString()])),
    trade: async (tradeNo) => decodeFirst(await run<Row>("SELECT record::text AS record FROM trades WHERE trade_no = $1", [tradeNo])),
    tradeByOutTradeNo: async (appKey, outTradeNo) => decodeFirst(await run<Row>("SELECT record::text AS record FROM trades WHERE app_key = $1 AND out_trade_no = $2", [appKey, outTradeNo])),
    refundByOutRefundNo: async (appKey, outRefundNo) => decodeFirst(await run<Row>("SELECT record::text AS record FROM refunds WHERE app_key = $1 AND out_refund_no = $2", [appKey, outRefundNo])),
    memberCard: async (id) => decodeFirst(await run<Row>("SELECT record::text AS record FROM member_cards WHERE id = $1", [id.toString()])),
    application: async (id) => decodeFirst(await run<Row>("SELECT record::text AS record FROM credit_applications WHERE id = $1", [id.toString()])),
  };
}

async function insertFixtureCustomers(session: Session, customers: readonly CustomerRecord[]): Promise<void> {
  for (const customer of customers) {
    await session.query("INSERT INTO customers (app_key, app_user_id, open_user_id, record) VALUES ($1, $2, $3, $4::jsonb)", [
      customer.appKey,
      customer.appUserId.toString(),
      customer.openUserId,
      encodeRecord(customer),
    ]);
  }
}

/** One row changed, or the record was never inserted: a caller's bug, said plainly. */
async function updateOne(session: Session, text: string, values: unknown[], what: string): Promise<void> {
  // A change of an existing record builds on what was read of it: under the app's lock.
  await session.lock();
  const rows = await session.query(`${text} RETURNING 1 AS updated`, values);
  if (rows.length !== 1) throw new Error(`${what} does not exist: insert it first`);
}

function transactionOn(session: Session, appKey: string, options: PostgresRecordsOptions, enqueue: (session: Session, delivery: Parameters<RecordsTransaction["enqueueCallback"]>[0]) => Promise<void>): RecordsTransaction {
  const run = session.query.bind(session);
  const { quotas } = options;
  /**
   * Inserts a record counted against a quota, in one statement: the database counts (the usage
   * row's lock orders concurrent inserts) and inserts only when the count was below the limit.
   * `insert` is the INSERT … SELECT of the record, its values from $3 on.
   */
  async function countedInsert(column: "orders" | "trades", limit: number, kind: "orders" | "payment trades", insert: string, values: unknown[]): Promise<void> {
    const rows = await run(
      `WITH counted AS (
         INSERT INTO app_usage AS usage (app_key, ${column}) VALUES ($1, 1)
         ON CONFLICT (app_key) DO UPDATE SET ${column} = usage.${column} + 1 WHERE usage.${column} < $2
         RETURNING 1
       )
       ${insert} FROM counted RETURNING 1 AS inserted`,
      [appKey, limit, ...values],
    );
    if (rows.length === 0) throw quotaError(kind, appKey, limit);
  }
  return {
    appKey,
    // A read is what a check-then-write builds on: from the first one, the app's lock is held.
    ...readsOn(run, () => session.lock()),
    async insertCustomer(customer) {
      checkTransactionApp(appKey, customer.appKey, "customer");
      await run("INSERT INTO customers (app_key, app_user_id, open_user_id, record) VALUES ($1, $2, $3, $4::jsonb)", [appKey, customer.appUserId.toString(), customer.openUserId, encodeRecord(customer)]);
    },
    async updateCustomer(customer) {
      checkTransactionApp(appKey, customer.appKey, "customer");
      await updateOne(session, "UPDATE customers SET record = $3::jsonb, open_user_id = $4 WHERE app_key = $1 AND app_user_id = $2", [appKey, customer.appUserId.toString(), encodeRecord(customer), customer.openUserId], `customer ${customer.appUserId}`);
    },
    async insertOrder(order) {
      checkTransactionApp(appKey, order.appKey, "order");
      await countedInsert("orders", quotas.maxOrdersPerApp, "orders", "INSERT INTO orders (id, app_key, create_time, record) SELECT $3, $1, $4, $5::jsonb", [order.id.toString(), order.createTime, encodeRecord(order)]);
    },
    async updateOrder(order) {
      checkTransactionApp(appKey, order.appKey, "order");
      await updateOne(session, "UPDATE orders SET record = $2::jsonb WHERE id = $1", [order.id.toString(), encodeRecord(order)], `order ${order.id}`);
    },
    async insertTrade(trade) {
      checkTransactionApp(appKey, trade.appKey, "trade");
      await countedInsert("trades", quotas.maxTradesPerApp, "payment trades", "INSERT INTO trades (trade_no, app_key, out_trade_no, status, expire_time, record) SELECT $3, $1, $4, $5, $6, $7::jsonb", [
        trade.tradeNo,
        trade.outTradeNo,
        trade.status,
        trade.expireTime,
        encodeRecord(trade),
      ]);
    },
    async updateTrade(trade) {
      checkTransactionApp(appKey, trade.appKey, "trade");
      await updateOne(session, "UPDATE trades SET status = $2, expire_time = $3, record = $4::jsonb WHERE trade_no = $1", [trade.tradeNo, trade.status, trade.expireTime, encodeRecord(trade)], `trade ${trade.tradeNo}`);
    },
    async insertRefund(refund) {
      checkTransactionApp(appKey, refund.appKey, "refund");
      await run("INSERT INTO refunds (refund_no, app_key, order_id, out_refund_no, record) VALUES ($1, $2, $3, $4, $5::jsonb)", [
        refund.refundNo,
        appKey,
        refund.orderId.toString(),
        refund.outRefundNo,
        encodeRecord(refund),
      ]);
    },
    async insertMemberCard(card) {
      checkTransactionApp(appKey, card.appKey, "member card");
      await run("INSERT INTO member_cards (id, app_key, record) VALUES ($1, $2, $3::jsonb)", [card.id.toString(), appKey, encodeRecord(card)]);
    },
    async insertApplication(application) {
      checkTransactionApp(appKey, application.appKey, "credit application");
      await run("INSERT INTO credit_applications (id, app_key, status, record) VALUES ($1, $2, $3, $4::jsonb)", [application.id.toString(), appKey, application.status, encodeRecord(application)]);
    },
    async updateApplication(application) {
      checkTransactionApp(appKey, application.appKey, "credit application");
      await updateOne(session, "UPDATE credit_applications SET status = $2, record = $3::jsonb WHERE id = $1", [application.id.toString(), application.status, encodeRecord(application)], `credit application ${application.id}`);
    },
    async nextSequence(name) {
      const [row] = await run<{ value: string }>(`SELECT nextval('${SEQUENCES[name]}') AS value`);
      return Number(row!.value);
    },
    async enqueueCallback(delivery) {
      checkTransactionApp(appKey, delivery.appKey, "callback delivery");
      await enqueue(session, delivery);
    },
  };
}

export interface StoreOpenReport {
  /**
   * The secret every instance on the database derives cashier keys with (cashier-key.ts), made
   * by the first: a cashierUrl from one instance opens on any, and after a restart.
   */
  cashierKeySecret: Buffer;
  schemaVersion: number;
  /** Migrations this start applied. */
  migrationsApplied: number;
  /** Whether this start loaded the fixtures (the first on this database) rather than checked them. */
  fixturesLoaded: boolean;
}

export interface PostgresRecords extends SandboxRecords {
  /** Connects, migrates (or checks the schema), and loads or checks the fixtures. */
  open(): Promise<StoreOpenReport>;
}

export function createPostgresRecords(options: PostgresRecordsOptions): PostgresRecords {
  const { database, fixtures } = options;
  const reference = createReferenceRecords(fixtures);
  // A few of an app's transactions wait on its database lock at once, the rest here.
  const withLock = createAppGates(Math.max(1, Math.floor(options.poolSize / 2)));
  const callbackLog = createPostgresCallbackLog({ database, clock: options.clock, instanceId: options.instanceId, leaseMs: options.leaseMs, horizonMs: options.pollIntervalMs });
  const hash = fixturesHash(fixtures);
  const faults = createPostgresFaultStore(database);

  /** Loads the fixtures into an empty database (true), or checks they are this instance's (false). */
  function loadFixtures(): Promise<boolean> {
    return database.transaction("fixtures", async (session) => {
      const [loaded] = await session.query<{ hash: string; loaded_at: Date }>("SELECT hash, loaded_at FROM fixtures");
      if (loaded === undefined) {
        await session.query("INSERT INTO fixtures (hash, document) VALUES ($1, $2::jsonb)", [hash, encodeRecord(fixtures)]);
        await insertFixtureCustomers(session, fixtures.customers);
        return true;
      }
      if (loaded.hash !== hash) {
        throw new FixturesMismatchError(
          `${database.server}, schema ${database.schema}: loaded with other fixtures (hash ${loaded.hash.slice(0, 12)}, at ${loaded.loaded_at.toISOString()}) than this sandbox's (hash ${hash.slice(0, 12)}). ` +
            "Every instance on one database must start with the same --fixtures and --id-range; to switch data sets, use another database or schema.",
        );
      }
      return false;
    });
  }

  const clockOffset: ClockOffsetStore = {
    // Every request reads it, so the same round trip says whether any fault is armed (faults.ts).
    async read() {
      const [row] = await database.query<{ offset_ms: string; faults_armed: boolean }>("SELECT offset_ms, EXISTS (SELECT 1 FROM faults WHERE remaining > 0) AS faults_armed FROM clock");
      faults.armed = row?.faults_armed ?? true;
      return Number(row?.offset_ms ?? 0);
    },
    advance: async (ms) => Number((await database.query<{ offset_ms: string }>("UPDATE clock SET offset_ms = offset_ms + $1 RETURNING offset_ms", [Math.round(ms)]))[0]?.offset_ms ?? 0),
    reset: async () => Number((await database.query<{ offset_ms: string }>("UPDATE clock SET offset_ms = 0 RETURNING offset_ms"))[0]?.offset_ms ?? 0),
  };

  async function list<T>(table: "orders" | "trades" | "refunds", filter: ListFilter): Promise<T[]> {
    const where = filter.appKey === undefined ? "" : "WHERE app_key = $1";
    const values: unknown[] = filter.appKey === undefined ? [] : [filter.appKey];
    const limit = filter.limit === undefined ? "" : ` LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
    return decodeRows<T>(await database.query<Row>(`SELECT record::text AS record FROM ${table} ${where} ORDER BY seq DESC${limit}`, values));
  }

  return {
    kind: "postgres",
    shared: true,
    ...reference,
    ...readsOn((text, values) => database.query(text, values)),
    async open() {
      await database.query("SELECT 1");
      const migrations = await migrate(database, { apply: options.applyMigrations });
      const fixturesLoaded = await loadFixtures();
      await database.query("INSERT INTO settings (name, value) VALUES ('cashier_key_secret', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(32)]);
      const [secret] = await database.query<{ value: Buffer }>("SELECT value FROM settings WHERE name = 'cashier_key_secret'");
      return { cashierKeySecret: secret!.value, schemaVersion: migrations.version, migrationsApplied: migrations.applied.length, fixturesLoaded };
    },
    transaction(appKey, work) {
      return withLock(appKey, () =>
        database.transaction(`app:${appKey}`, (session) => work(transactionOn(session, appKey, options, (s, delivery) => callbackLog.insert(s, delivery))), { lazy: true }),
      );
    },
    orders: (filter = {}) => list("orders", filter),
    trades: (filter = {}) => list("trades", filter),
    refunds: (filter = {}) => list("refunds", filter),
    async dueTrades(nowMs, limit = 1000) {
      return decodeRows<TradeRecord>(
        await database.query<Row>(
          `SELECT record::text AS record FROM (
             SELECT record, expire_time AS due FROM trades WHERE status = 'WAIT_BUYER_PAY' AND expire_time <= $1
             UNION ALL
             SELECT record, (record->>'unknownUntil')::bigint AS due FROM trades WHERE status = 'UNKNOWN' AND (record->>'unknownUntil')::bigint <= $1
           ) AS due ORDER BY due LIMIT $2`,
          [Math.floor(nowMs), limit],
        ),
      );
    },
    callbackLog,
    faults,
    listeners: {
      async register(appKey, sessionId) {
        await database.query(
          `INSERT INTO listeners (app_key, instance_id, session_id, expires_at) VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4 / 1000.0))
           ON CONFLICT (app_key) DO UPDATE SET instance_id = EXCLUDED.instance_id, session_id = EXCLUDED.session_id, expires_at = EXCLUDED.expires_at`,
          [appKey, options.instanceId, sessionId, LISTENER_LEASE_MS],
        );
      },
      async renew(appKey, sessionId) {
        const rows = await database.query("UPDATE listeners SET expires_at = clock_timestamp() + make_interval(secs => $3 / 1000.0) WHERE app_key = $1 AND session_id = $2 RETURNING 1 AS renewed", [appKey, sessionId, LISTENER_LEASE_MS]);
        return rows.length === 1;
      },
      async unregister(appKey, sessionId) {
        await database.query("DELETE FROM listeners WHERE app_key = $1 AND session_id = $2", [appKey, sessionId]);
      },
    },
    async reset(appKey) {
      if (appKey === undefined) {
        await database.transaction("fixtures", async (session) => {
          await session.query(`TRUNCATE ${APP_TABLES.join(", ")}`);
          for (const sequence of Object.values(SEQUENCES)) await session.query(`ALTER SEQUENCE ${sequence} RESTART`);
          await insertFixtureCustomers(session, fixtures.customers);
        });
        return;
      }
      await withLock(appKey, () =>
        database.transaction(`app:${appKey}`, async (session) => {
          for (const table of APP_TABLES) await session.query(`DELETE FROM ${table} WHERE app_key = $1`, [appKey]);
          await insertFixtureCustomers(
            session,
            fixtures.customers.filter((customer) => customer.appKey === appKey),
          );
        }),
      );
    },
    clockOffset,
    async health() {
      await database.query("SELECT 1 FROM clock");
    },
    close: () => database.close(),
  };
}


