// The PostgreSQL store's schema, as numbered migrations: each is applied once, in order, in one
// transaction with the others of its run, while the migration lock keeps a second instance (or
// `mop sandbox migrate`) from applying it too. schema_migrations records what was applied. A
// database migrated by a newer package is refused (its schema may mean something this one does
// not know); an older one is migrated on start, unless the operator applies migrations
// separately (migrate: false), and then the start is refused until they have.
//
// Records are JSON documents (codec.ts) with the columns their keys, constraints and queries
// need: the database enforces each rule the domain relies on (an app's outTradeNo,
// outRefundNo and openUserId unique, one refund per order, quotas counted in app_usage).
import type { Database, Session } from "./connection.js";
import { StoreUnavailableError } from "../rules.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "records, callback deliveries, nonces, clock",
    sql: `
CREATE TABLE fixtures (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  hash text NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  document jsonb NOT NULL
);
CREATE TABLE customers (
  app_key text NOT NULL,
  app_user_id bigint NOT NULL,
  open_user_id text NOT NULL,
  record jsonb NOT NULL,
  CONSTRAINT customers_app_user_id PRIMARY KEY (app_key, app_user_id),
  CONSTRAINT customers_open_user_id UNIQUE (app_key, open_user_id)
);
CREATE TABLE orders (
  id bigint CONSTRAINT orders_pkey PRIMARY KEY,
  app_key text NOT NULL,
  create_time bigint NOT NULL,
  seq bigserial NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX orders_app_key ON orders (app_key, seq DESC);
CREATE INDEX orders_seq ON orders (seq DESC);
CREATE TABLE trades (
  trade_no text CONSTRAINT trades_pkey PRIMARY KEY,
  app_key text NOT NULL,
  out_trade_no text NOT NULL,
  status text NOT NULL CHECK (status IN ('WAIT_BUYER_PAY', 'SUCCESS', 'CLOSED', 'REFUND', 'UNKNOWN')),
  expire_time bigint NOT NULL,
  seq bigserial NOT NULL,
  record jsonb NOT NULL,
  CONSTRAINT trades_out_trade_no UNIQUE (app_key, out_trade_no)
);
CREATE INDEX trades_waiting ON trades (expire_time) WHERE status = 'WAIT_BUYER_PAY';
CREATE INDEX trades_app_key ON trades (app_key, seq DESC);
CREATE INDEX trades_seq ON trades (seq DESC);
CREATE TABLE refunds (
  refund_no text CONSTRAINT refunds_pkey PRIMARY KEY,
  app_key text NOT NULL,
  order_id bigint NOT NULL CONSTRAINT refunds_order_id UNIQUE,
  out_refund_no text,
  seq bigserial NOT NULL,
  record jsonb NOT NULL,
  CONSTRAINT refunds_out_refund_no UNIQUE (app_key, out_refund_no)
);
CREATE INDEX refunds_app_key ON refunds (app_key, seq DESC);
CREATE TABLE member_cards (
  id bigint CONSTRAINT member_cards_pkey PRIMARY KEY,
  app_key text NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX member_cards_app_key ON member_cards (app_key);
CREATE TABLE credit_applications (
  id bigint CONSTRAINT credit_applications_pkey PRIMARY KEY,
  app_key text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED')),
  record jsonb NOT NULL
);
CREATE INDEX credit_applications_app_key ON credit_applications (app_key);
CREATE TABLE app_usage (
  app_key text PRIMARY KEY,
  orders integer NOT NULL DEFAULT 0 CHECK (orders >= 0),
  trades integer NOT NULL DEFAULT 0 CHECK (trades >= 0)
);
CREATE SEQUENCE seq_order;
CREATE SEQUENCE seq_app_user;
CREATE SEQUENCE seq_trade;
CREATE SEQUENCE seq_refund;
CREATE SEQUENCE seq_member_card;
CREATE SEQUENCE seq_application;
CREATE TABLE clock (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0)
);
INSERT INTO clock DEFAULT VALUES;
CREATE TABLE nonces (
  app_key text NOT NULL,
  nonce text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (app_key, nonce)
);
CREATE INDEX nonces_expires_at ON nonces (expires_at);
CREATE TABLE callback_deliveries (
  event_id text PRIMARY KEY,
  app_key text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  trade_no text,
  application_id bigint,
  next_attempt_time bigint,
  lease_owner text,
  lease_until timestamptz,
  attempting_since timestamptz,
  seq bigserial NOT NULL,
  record jsonb NOT NULL
);
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_time) WHERE status = 'pending';
CREATE INDEX callback_deliveries_app_key ON callback_deliveries (app_key, seq DESC);
CREATE INDEX callback_deliveries_seq ON callback_deliveries (seq DESC);
CREATE TABLE faults (
  fault_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  app_key text,
  operation_id text NOT NULL,
  remaining integer NOT NULL CHECK (remaining >= 0),
  record jsonb NOT NULL
);
CREATE INDEX faults_armed ON faults (operation_id, seq) WHERE remaining > 0;
CREATE INDEX faults_scope ON faults (app_key, seq);
CREATE SEQUENCE seq_fault;
CREATE TABLE settings (
  name text PRIMARY KEY,
  value bytea NOT NULL
);
CREATE TABLE listeners (
  app_key text PRIMARY KEY,
  instance_id text NOT NULL,
  session_id text NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The store's schema is older than this package and migrations are applied separately. */
export class SchemaBehindError extends StoreUnavailableError {
  override readonly name = "SchemaBehindError";
}

/** The database was migrated by a newer package. */
export class SchemaAheadError extends StoreUnavailableError {
  override readonly name = "SchemaAheadError";
}

async function appliedVersions(session: Session, schema: string): Promise<number[]> {
  const [exists] = await session.query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [`${schema}.schema_migrations`]);
  if (!exists?.found) return [];
  return (await session.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map((row) => row.version);
}

export interface MigrationReport {
  /** Versions applied by this call. */
  applied: Migration[];
  /** The schema's version now. */
  version: number;
}

/**
 * Applies the migrations the database lacks (apply: true), or checks that it lacks none
 * (apply: false, throwing SchemaBehindError). Either way a database ahead of this package is
 * refused with SchemaAheadError.
 */
export async function migrate(database: Database, options: { apply: boolean }): Promise<MigrationReport> {
  return database.transaction("migrations", async (session) => {
    if (options.apply) await session.query(`CREATE SCHEMA IF NOT EXISTS ${database.schema}`);
    const applied = new Set(await appliedVersions(session, database.schema));
    const newest = Math.max(0, ...applied);
    if (newest > LATEST_SCHEMA_VERSION) {
      throw new SchemaAheadError(
        `${database.server}, schema ${database.schema}: migrated to version ${newest} by a newer merchant-open-platform; this one knows versions up to ${LATEST_SCHEMA_VERSION}. Upgrade the package, or use another database or schema.`,
      );
    }
    const missing = MIGRATIONS.filter((migration) => !applied.has(migration.version));
    if (missing.length > 0 && !options.apply) {
      throw new SchemaBehindError(
        `${database.server}, schema ${database.schema}: at version ${newest}, and this sandbox needs version ${LATEST_SCHEMA_VERSION}. Apply the migrations first: mop sandbox migrate --store <URL>.`,
      );
    }
    if (missing.length > 0) {
      await session.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (const migration of missing) {
        await session.query(migration.sql);
        await session.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      }
    }
    return { applied: missing, version: Math.max(newest, ...missing.map((migration) => migration.version)) };
  });
}
