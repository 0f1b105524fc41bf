// The connection to PostgreSQL: `pg` (an optional peer dependency, loaded only when a
// postgres:// store is asked for), one pool per sandbox, every session in the sandbox's schema,
// transactions that hold their app's lock, and the driver's failures in the sandbox's words:
// StoreUnavailableError when the server cannot be reached (the request is answered 503),
// StoreConflictError when a unique constraint refused an insert. A URL is never shown with its
// password.
import type { Pool, PoolClient, PoolConfig, QueryResultRow } from "pg";
import { createHash } from "node:crypto";
import { PeerDependencyMissingError } from "../../../errors.js";
import { SandboxConfigError } from "../../errors.js";
import { StoreConflictError, StoreUnavailableError } from "../rules.js";

export interface ConnectionSettings {
  /** postgres:// or postgresql:// URL. */
  url: string;
  /** The schema the sandbox's tables live in. Default "mop_sandbox". */
  schema?: string;
  /** Connections at most. Default 10. */
  poolSize?: number;
  /** How long to wait for a connection (and for the server at start). Default 3000 ms. */
  connectTimeoutMs?: number;
  /** How long one statement may run. Default 10000 ms. */
  statementTimeoutMs?: number;
  /**
   * Wait for each commit to reach the disk (default true). The nonce store's own connections
   * turn it off: a server crash may then lose the last fraction of a second of nonces, as Redis
   * with appendfsync everysec may, and no request waits for a disk flush.
   */
  synchronousCommit?: boolean;
}

/** The URL without its password (and without a password in its query), for messages and logs. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    for (const name of [...parsed.searchParams.keys()]) if (/pass/i.test(name)) parsed.searchParams.set(name, "***");
    return parsed.toString();
  } catch {
    return "(a URL that cannot be read)";
  }
}

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** host:port/database of a URL, for messages. */
export function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL at ${parsed.hostname || "localhost"}:${parsed.port || "5432"}${parsed.pathname && parsed.pathname !== "/" ? parsed.pathname : "/postgres"}`;
  } catch {
    return "PostgreSQL";
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "57P01", "57P02", "57P03", "53300", "3D000", "28P01", "28000"]);

/** Whether a driver error means the server is out of reach (rather than a statement that failed). */
function isConnectionProblem(error: { code?: string; message?: string }): boolean {
  if (error.code !== undefined && (CONNECTION_CODES.has(error.code) || error.code.startsWith("08"))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|connect ETIMEDOUT|Connection ended unexpectedly|not queryable/i.test(error.message ?? "");
}

/** What a driver error says, in the sandbox's words; no password in it (the driver never prints one). */
function explainConnectionProblem(server: string, error: { code?: string; message?: string }): string {
  switch (error.code) {
    case "28P01":
    case "28000":
      return `${server} refused the user name or password of the URL`;
    case "3D000":
      return `${server}: the database does not exist (create it first: createdb)`;
    case "57P01":
    case "57P02":
      return `${server} is shutting down`;
    case "57P03":
      return `${server} is starting up and does not accept connections yet`;
    case "53300":
      return `${server} has no connection left (too many clients)`;
    default:
      return `${server} does not answer (${error.code ?? error.message ?? "no answer"})`;
  }
}

export interface Database {
  readonly server: string;
  readonly schema: string;
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /**
   * Runs `work` in one transaction, holding the advisory lock named `lockName` until it ends:
   * from the start, or with `lazy`, from the first `session.lock()` (a transaction that only
   * inserts, its keys unique by constraint, need not wait for the others).
   */
  transaction<T>(lockName: string, work: (client: Session) => Promise<T>, options?: { lazy?: boolean }): Promise<T>;
  close(): Promise<void>;
}

/** One connection inside a transaction. */
export interface Session {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Takes the transaction's advisory lock now, if it does not hold it yet. */
  lock(): Promise<void>;
}

/** An advisory lock key (a signed 64-bit integer) for a name: the same name, the same lock, on every instance. */
export function lockKey(name: string): bigint {
  return createHash("sha256").update(`merchant-open-platform:${name}`).digest().readBigInt64BE(0);
}

function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new SandboxConfigError("schema", `the store's schema must be a lower-case SQL name (letters, digits, _), got ${JSON.stringify(schema)}`);
  return schema;
}

function positive(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new SandboxConfigError(field, `${field} must be a positive whole number, got ${String(value)}`);
  return value;
}

async function loadDriver(): Promise<typeof import("pg")> {
  try {
    const loaded = (await import("pg")) as typeof import("pg") & { default?: typeof import("pg") };
    return loaded.default ?? loaded;
  } catch (error) {
    // An optional peer dependency: users of the memory store never install it.
    throw new PeerDependencyMissingError("pg", `a PostgreSQL store needs the pg package: npm install pg@8 (${(error as Error).message})`, { cause: error });
  }
}

/** Turns a driver error into StoreUnavailableError or StoreConflictError; anything else passes as it is. */
export function storeError(server: string, error: unknown): unknown {
  if (error instanceof StoreUnavailableError || error instanceof StoreConflictError) return error;
  const problem = (error ?? {}) as { code?: string; message?: string; constraint?: string };
  if (problem.code === "23505") return new StoreConflictError(`the store refused a duplicate (${problem.constraint ?? "a unique key"})`, { constraint: problem.constraint ?? "unique", cause: error });
  if (isConnectionProblem(problem)) return new StoreUnavailableError(explainConnectionProblem(server, problem), { cause: error });
  return error;
}

/**
 * The database of a postgres:// URL: the settings are checked now (SandboxConfigError), the
 * driver is loaded and the pool made on first use; nothing connects until a query is made.
 */
export function createDatabase(settings: ConnectionSettings): Database {
  if (!isPostgresUrl(settings.url)) throw new SandboxConfigError("store", `the store must be "memory" or a postgres:// URL, got ${JSON.stringify(redactPostgresUrl(settings.url))}`);
  const schema = checkSchemaName(settings.schema ?? "mop_sandbox");
  const connectTimeoutMs = positive("connectTimeoutMs", settings.connectTimeoutMs, 3000);
  const statementTimeoutMs = positive("statementTimeoutMs", settings.statementTimeoutMs, 10_000);
  const poolSize = positive("poolSize", settings.poolSize, 10);
  const server = describeServer(settings.url);
  let created: Promise<Pool> | undefined;
  const poolOf = () =>
    (created ??= loadDriver().then((pg) => {
      const config: PoolConfig = {
        connectionString: settings.url,
        max: poolSize,
        connectionTimeoutMillis: connectTimeoutMs,
        idleTimeoutMillis: 30_000,
        // The client gives up on a statement a little after the server would have.
        query_timeout: statementTimeoutMs + 1000,
        statement_timeout: statementTimeoutMs,
        idle_in_transaction_session_timeout: statementTimeoutMs * 3,
        keepAlive: true,
        application_name: "mop-sandbox",
        options: `-c search_path=${schema}${settings.synchronousCommit === false ? " -c synchronous_commit=off" : ""}`,
      };
      const pool: Pool = new pg.Pool(config);
      // An idle connection that breaks is dropped by the pool; the next query reconnects.
      pool.on("error", () => undefined);
      return pool;
    }));

  const mapped = (error: unknown) => storeError(server, error);

  async function connect(): Promise<PoolClient> {
    const pool = await poolOf();
    try {
      return await pool.connect();
    } catch (error) {
      throw mapped(error);
    }
  }

  return {
    server,
    schema,
    async query<R extends QueryResultRow>(text: string, values?: unknown[]) {
      const pool = await poolOf();
      try {
        return (await pool.query<R>(text, values)).rows;
      } catch (error) {
        throw mapped(error);
      }
    },
    async transaction(lockName, work, options = {}) {
      const client = await connect();
      let broken: unknown;
      let locked: Promise<void> | undefined;
      const session: Session = {
        lock: () => (locked ??= session.query(`SELECT pg_advisory_xact_lock(${lockKey(lockName)})`).then(() => undefined)),
        async query<R extends QueryResultRow>(text: string, values?: unknown[]) {
          try {
            return (await client.query<R>(text, values)).rows;
          } catch (error) {
            const problem = mapped(error);
            if (problem instanceof StoreUnavailableError) broken = problem;
            throw problem;
          }
        },
      };
      try {
        // One round trip: the transaction and its lock (a literal key, so no parameters).
        if (options.lazy) {
          await session.query("BEGIN");
        } else {
          locked = session.query(`BEGIN; SELECT pg_advisory_xact_lock(${lockKey(lockName)})`).then(() => undefined);
          await locked;
        }
        const result = await work(session);
        await session.query("COMMIT");
        return result;
      } catch (error) {
        if (broken === undefined) await client.query("ROLLBACK").catch((rollbackError: unknown) => (broken = rollbackError));
        throw mapped(error);
      } finally {
        // A connection that failed is closed, not handed to the next transaction.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    async close() {
      if (created === undefined) return;
      const pool = await created.catch(() => undefined);
      await pool?.end();
    },
  };
}
