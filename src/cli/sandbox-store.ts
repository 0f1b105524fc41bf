// The store options of `mop sandbox` (--store, --store-schema, --store-pool-size, --no-migrate)
// and `mop sandbox migrate`, which applies a PostgreSQL store's migrations for operators who
// run them separately from the instances (docs/team-sandbox.md).
import { parseArgs } from "node:util";
import { isPostgresUrl, migrateStore, redactPostgresUrl, StoreUnavailableError, type StoreOptions } from "../sandbox/index.js";
import { MerchantOpenPlatformError, PeerDependencyMissingError } from "../errors.js";
import { UsageError } from "./errors.js";
import type { CliIo } from "./io.js";

export const STORE_USAGE = `  --store URL                  where the records live: memory (default; this process, gone
                               when it stops) or postgres://USER:PASSWORD@HOST:PORT/DATABASE,
                               shared by every instance started with it and kept across
                               restarts (docs/team-sandbox.md); used nonces are kept there too
                               unless --nonce-store names Redis or memory
  --store-schema NAME          the PostgreSQL schema of the sandbox's tables (default mop_sandbox)
  --store-pool-size N          database connections at most (default 10)
  --no-migrate                 apply no migration on start: refuse to start until
                               "mop sandbox migrate" has applied them
  --callback-lease DURATION    how long an instance holds a callback attempt it claimed; an
                               instance that crashed has its attempts taken over after it
                               (default 30s; longer than --callback-timeout of 5 s)`;

export const STORE_OPTIONS = {
  store: { type: "string" },
  "store-schema": { type: "string" },
  "store-pool-size": { type: "string" },
  "no-migrate": { type: "boolean" },
  "callback-lease": { type: "string" },
} as const;

export interface StoreArguments {
  store?: string;
  "store-schema"?: string;
  "store-pool-size"?: string;
  "no-migrate"?: boolean;
  "callback-lease"?: string;
}

/** "30s" → 30000; ms, s, m. */
function parseLease(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/.exec(text);
  const ms = match ? Math.round(Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 }[match[2] as "ms" | "s" | "m"])) : NaN;
  if (!(ms >= 1000 && ms <= 3_600_000)) throw new UsageError(`--callback-lease must be a duration from 1s to 60m such as 30s, got ${JSON.stringify(text)}`);
  return ms;
}

/** The store URL (or "memory") and its options, checked; never echoes a password. */
export function storeChoice(values: StoreArguments): { store: string; options: StoreOptions } | undefined {
  const store = values.store;
  const postgresOnly = (["store-schema", "store-pool-size", "no-migrate", "callback-lease"] as const).filter((name) => values[name] !== undefined);
  if (store === undefined || store === "memory") {
    if (postgresOnly.length > 0) throw new UsageError(`--${postgresOnly[0]} applies to a PostgreSQL store only (--store postgres://…)`);
    return undefined;
  }
  if (!isPostgresUrl(store)) throw new UsageError(`--store must be "memory" or a postgres:// URL, got ${JSON.stringify(redactPostgresUrl(store))}`);
  const options: StoreOptions = {};
  if (values["store-schema"] !== undefined) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(values["store-schema"])) throw new UsageError(`--store-schema must be a lower-case SQL name (letters, digits, _), got ${JSON.stringify(values["store-schema"])}`);
    options.schema = values["store-schema"];
  }
  if (values["store-pool-size"] !== undefined) {
    if (!/^[1-9][0-9]{0,3}$/.test(values["store-pool-size"])) throw new UsageError(`--store-pool-size must be a whole number from 1 to 9999, got ${JSON.stringify(values["store-pool-size"])}`);
    options.poolSize = Number(values["store-pool-size"]);
  }
  if (values["no-migrate"]) options.migrate = false;
  if (values["callback-lease"] !== undefined) options.leaseMs = parseLease(values["callback-lease"]);
  return { store, options };
}

/** A store that cannot be opened, or pg missing: the message to print (no password), else undefined. */
export function storeProblem(error: unknown): string | undefined {
  if (error instanceof PeerDependencyMissingError && error.peer === "pg") return `${error.message.replace(/ \(.*\)$/s, "")}`;
  if (error instanceof StoreUnavailableError) return error.message;
  return undefined;
}

const MIGRATE_USAGE = `Usage: mop sandbox migrate --store postgres://… [options]

Applies the PostgreSQL store's migrations that the database lacks, and exits. Instances apply
them on start unless started with --no-migrate; run this instead when the instances' database
user may not change the schema, or to migrate before a deploy.

Options:
  --store URL            postgres://USER:PASSWORD@HOST:PORT/DATABASE (required)
  --store-schema NAME    the schema of the sandbox's tables (default mop_sandbox)
  --check                apply nothing: exit 0 when the schema is current, 1 when migrations
                         are missing
  -h, --help             show this help
`;

export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { store: { type: "string" }, "store-schema": { type: "string" }, check: { type: "boolean" }, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    io.stdout(MIGRATE_USAGE);
    return 0;
  }
  if (values.store === undefined) throw new UsageError("migrate needs --store postgres://…");
  const choice = storeChoice({ store: values.store, ...(values["store-schema"] !== undefined && { "store-schema": values["store-schema"] }) });
  if (choice === undefined) throw new UsageError("migrate applies to a PostgreSQL store: --store postgres://…");
  try {
    const outcome = await migrateStore(choice.store, { ...(choice.options.schema !== undefined && { schema: choice.options.schema }), check: values.check === true });
    if (outcome.applied.length === 0) io.stdout(`${outcome.where}: at version ${outcome.version}, the latest; nothing to apply.\n`);
    for (const migration of outcome.applied) io.stdout(`${outcome.where}: applied ${migration.version} (${migration.name}).\n`);
    if (outcome.applied.length > 0) io.stdout(`${outcome.where}: at version ${outcome.version}.\n`);
    return 0;
  } catch (error) {
    const problem = storeProblem(error);
    if (problem === undefined && !(error instanceof MerchantOpenPlatformError)) throw error;
    io.stderr(`mop sandbox migrate: ${problem ?? (error as Error).message}\n`);
    return 1;
  }
}
