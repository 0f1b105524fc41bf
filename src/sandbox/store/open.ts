// Which store keeps a sandbox's records: "memory" (default: one developer, nothing to install,
// gone with the process) or a postgres:// URL (a team: several instances, restarts), with the
// nonce store and the callback log that go with it (DESIGN item 17).
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { NonceStore } from "../../signing/index.js";
import type { SandboxClock } from "../clock.js";
import { SandboxConfigError } from "../errors.js";
import type { SandboxFixtures } from "../fixtures/load.js";
import type { SandboxLogger } from "../logger.js";
import { createMemoryStore } from "./memory.js";
import { createDatabase, describeServer, isPostgresUrl, redactPostgresUrl } from "./postgres/connection.js";
import { createPostgresNonceStore } from "./postgres/nonce-store.js";
import { createPostgresRecords, type StoreOpenReport } from "./postgres/records.js";
import { LATEST_SCHEMA_VERSION, migrate } from "./postgres/migrations.js";
import type { StoreQuotas } from "./rules.js";
import type { SandboxRecords } from "./types.js";

/** "memory", or a postgres:// (postgresql://) URL. */
export type StoreChoice = string;

export interface StoreOptions {
  /** The schema of the sandbox's tables. Default "mop_sandbox". */
  schema?: string;
  /** Apply missing migrations on start (default true); false: refuse to start until `mop sandbox migrate` has. */
  migrate?: boolean;
  /** Connections at most. Default 10. */
  poolSize?: number;
  /** How long to wait for the database (a connection, and at start). Default 3000 ms. */
  connectTimeoutMs?: number;
  /** How long one statement may run. Default 10000 ms. */
  statementTimeoutMs?: number;
  /** How long an instance holds a callback delivery it claimed before another may take it over (after a crash). Default 30000 ms. */
  leaseMs?: number;
  /** How often each instance looks for callback deliveries due that no instance holds. Default 1000 ms. */
  pollIntervalMs?: number;
  /** This instance's name in leases. Default host:pid:random. */
  instanceId?: string;
  /** Keep used nonces in the database too (default true); the sandbox's nonceStore option overrides it. */
  nonces?: boolean;
}

export interface StoreSettings extends StoreOptions {
  fixtures: SandboxFixtures;
  quotas: StoreQuotas;
  clock: SandboxClock;
  logger: SandboxLogger;
}

export interface OpenedStore {
  records: SandboxRecords;
  /** The store's own nonce store (PostgreSQL), if it keeps nonces. */
  nonceStore?: NonceStore & { kind?: string };
  /** How often instances sharing the records poll the callback log. */
  pollIntervalMs: number;
  /** Connects, migrates and loads or checks the fixtures (nothing for memory). */
  open(): Promise<StoreOpenReport | undefined>;
  close(): Promise<void>;
}

/** "memory", or "PostgreSQL at host:port/db" (never a password), for banners and messages. */
export function describeStore(choice: StoreChoice | undefined): string {
  if (choice === undefined || choice === "memory") return "memory (this process)";
  return isPostgresUrl(choice) ? describeServer(choice) : JSON.stringify(redactPostgresUrl(choice));
}

function positiveOption(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new SandboxConfigError(`storeOptions.${field}`, `storeOptions.${field} must be a positive whole number of ms, got ${String(value)}`);
  return value;
}

export function openRecords(choice: StoreChoice | undefined, settings: StoreSettings): OpenedStore {
  if (choice === undefined || choice === "memory") {
    const records = createMemoryStore(settings.fixtures, settings.quotas, { clock: settings.clock });
    return { records, pollIntervalMs: 0, open: async () => undefined, close: () => records.close() };
  }
  if (typeof choice !== "string" || !isPostgresUrl(choice)) {
    throw new SandboxConfigError("store", `store must be "memory" or a postgres:// URL, got ${typeof choice === "string" ? JSON.stringify(redactPostgresUrl(choice)) : typeof choice}`);
  }
  const pollIntervalMs = positiveOption("pollIntervalMs", settings.pollIntervalMs, 1000);
  const connection = {
    url: choice,
    ...(settings.schema !== undefined && { schema: settings.schema }),
    ...(settings.connectTimeoutMs !== undefined && { connectTimeoutMs: settings.connectTimeoutMs }),
    ...(settings.statementTimeoutMs !== undefined && { statementTimeoutMs: settings.statementTimeoutMs }),
  };
  const database = createDatabase({ ...connection, ...(settings.poolSize !== undefined && { poolSize: settings.poolSize }) });
  // Nonces on connections of their own, committed without waiting for the disk (connection.ts).
  const nonceDatabase = settings.nonces === false ? undefined : createDatabase({ ...connection, poolSize: Math.max(2, Math.ceil((settings.poolSize ?? 10) / 2)), synchronousCommit: false });
  const records = createPostgresRecords({
    database,
    fixtures: settings.fixtures,
    quotas: settings.quotas,
    clock: settings.clock,
    instanceId: settings.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    leaseMs: positiveOption("leaseMs", settings.leaseMs, 30_000),
    applyMigrations: settings.migrate !== false,
    pollIntervalMs,
    poolSize: settings.poolSize ?? 10,
  });
  return {
    records,
    ...(nonceDatabase && { nonceStore: createPostgresNonceStore({ database: nonceDatabase }) }),
    pollIntervalMs,
    open: () => records.open(),
    close: async () => {
      await Promise.all([records.close(), nonceDatabase?.close()]);
    },
  };
}

export interface MigrationOutcome {
  /** "PostgreSQL at host:port/db, schema mop_sandbox". */
  where: string;
  applied: { version: number; name: string }[];
  version: number;
  latest: number;
}

/**
 * `mop sandbox migrate`: applies the migrations a PostgreSQL store lacks (or, with check, only
 * verifies there are none: SchemaBehindError otherwise) and closes the connection.
 */
export async function migrateStore(url: string, options: { schema?: string; check?: boolean; connectTimeoutMs?: number } = {}): Promise<MigrationOutcome> {
  const database = createDatabase({ url, connectTimeoutMs: options.connectTimeoutMs ?? 5000, ...(options.schema !== undefined && { schema: options.schema }) });
  try {
    const report = await migrate(database, { apply: options.check !== true });
    return {
      where: `${database.server}, schema ${database.schema}`,
      applied: report.applied.map(({ version, name }) => ({ version, name })),
      version: report.version,
      latest: LATEST_SCHEMA_VERSION,
    };
  } finally {
    await database.close();
  }
}

export { isPostgresUrl, redactPostgresUrl };
