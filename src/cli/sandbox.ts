// `mop sandbox`: runs the local sandbox until SIGINT or SIGTERM. Prints where everything is and
// the demo credentials, then one JSON line per request unless --quiet.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import {
  createJsonLogger,
  createSandbox,
  fileDescriptorSink,
  defaultFixtures,
  defaultFixturesText,
  FixtureError,
  describeStore,
  nonLoopbackWarning,
  parseFixtures,
  ID_RANGES,
  type IdRange,
  type SandboxFixtures,
} from "../sandbox/index.js";
import { createRedisNonceStore, redactUrl, type RedisNonceStore } from "../signing/index.js";
import { safeRangeFixtures } from "../sandbox/index.js";
import { UsageError } from "./errors.js";
import { migrateCommand, STORE_OPTIONS, STORE_USAGE, storeChoice, storeProblem } from "./sandbox-store.js";
import { processIo, type CliIo, type Subcommand } from "./io.js";

const USAGE = `Usage: mop sandbox [options]
       mop sandbox migrate --store postgres://… (apply the store's migrations; --help for more)

Runs a local, stateful Merchant Open Platform: the signed interface (/open-api/v1 and
/open-api), the key-based interface (/v1), the control API (/sandbox), cashier pages
(/cashier/{tradeNo}) and docs (/docs). Every request and answer is validated against the
contract. Stop it with Ctrl+C.

Options:
  --host HOST                  address to listen on (default 127.0.0.1)
  --port PORT                  port (default 4010; 0 picks a free one)
  --fixtures FILE              start from this data set instead of the default one
                               (format: src/sandbox/fixtures/fixtures.schema.json)
  --print-fixtures             print the data set (default, or --fixtures FILE) and exit
  --callback-schedule LIST     retry delays of callbacks, e.g. 1s,1s,5s (units ms, s, m, h;
                               default 15s,15s,30s,3m,10m,20m,30m,30m,30m,60m,3h,3h,3h,6h,6h)
  --allow-insecure-notify      accept notifyUrls on loopback hosts (127.0.0.1, ::1, localhost),
                               http:// included, for a local receiver without TLS
  --allow-private-notify       send callbacks to private, link-local and other non-public
                               addresses too (refused by default, also when a name resolves to one)
  --max-orders-per-app N       orders one app may hold before 100018 (default 2000; reset frees)
  --max-trades-per-app N       payment trades one app may hold (default 10000)
  --public-base-url URL        base of cashierUrl when the sandbox is reached through a proxy
  --nonce-capacity N           nonces remembered at once in memory (default 1000000, about
                               90 MB at most; each app gets an equal share of at least a
                               quarter); more for a load test over 400 signed requests/s
  --nonce-store URL            record used nonces in Redis (redis://HOST:PORT/DB) so several
                               sandboxes behind one address refuse each other's replays
                               (default: in memory, this process only; with --store postgres://…,
                               in PostgreSQL); "memory" keeps them in this process
${STORE_USAGE}
  --id-range large|safe        large (default): order ids above 2^53, to catch clients that
                               round ids; safe: every id below 2^53, for tools that parse ids
                               as doubles (fixture records with larger ids are left out)
  --quiet                      no request log lines (errors are still printed)
  -h, --help                   show this help
`;

const OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  fixtures: { type: "string" },
  "print-fixtures": { type: "boolean" },
  "callback-schedule": { type: "string" },
  "allow-insecure-notify": { type: "boolean" },
  "allow-private-notify": { type: "boolean" },
  "max-orders-per-app": { type: "string" },
  "max-trades-per-app": { type: "string" },
  "public-base-url": { type: "string" },
  "nonce-capacity": { type: "string" },
  "nonce-store": { type: "string" },
  ...STORE_OPTIONS,
  "id-range": { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;


const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function parseCount(flag: string, text: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new UsageError(`${flag} must be a whole number from 1 to 999999999, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** "1s,1s,5s" → [1000, 1000, 5000]. */
export function parseSchedule(text: string): number[] {
  return text.split(",").map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(part);
    if (!match) throw new UsageError(`--callback-schedule: "${part.trim()}" is not a delay such as 500ms, 15s, 3m or 6h`);
    return Math.round(Number(match[1]) * (UNITS[match[2] ?? "ms"] ?? 1));
  });
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 4010;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseIdRange(text: string | undefined): IdRange {
  if (text === undefined) return "large";
  if (!(ID_RANGES as readonly string[]).includes(text)) throw new UsageError(`--id-range must be "large" or "safe", got ${JSON.stringify(text)}`);
  return text as IdRange;
}

function readFixtures(file: string | undefined): { text: string; fixtures: SandboxFixtures } {
  if (file === undefined) return { text: defaultFixturesText(), fixtures: defaultFixtures() };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read --fixtures ${JSON.stringify(file)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return { text, fixtures: parseFixtures(text, file) };
}

/** Where the records and nonces are kept, for the banner (no password). */
function storeLines(store: string | undefined, nonceStore: string | undefined): string[] {
  if (store === undefined) return [];
  const nonces = nonceStore === undefined ? "in the same database" : nonceStore === "memory" ? "in this process only: a request replayed to another instance is accepted" : `in Redis (${redactUrl(nonceStore)})`;
  return [
    `Records: ${describeStore(store)}, shared by every instance started with it; kept across restarts.`,
    "A reset applies to one app at a time: POST /sandbox/reset?appKey=….",
    `Used nonces: ${nonces}.`,
    "",
  ];
}

function banner(url: string, fixtures: SandboxFixtures, startedMs: number, idRange: IdRange, omitted: number, store: string[] = []): string {
  const app = fixtures.apps[0];
  const apiKey = fixtures.apiKeys[0];
  const lines = [
    `Merchant Open Platform sandbox listening (${startedMs} ms after start)`,
    "",
    `  Signed interface   ${url}/open-api/v1   (also unversioned: ${url}/open-api)`,
    `  Key-based          ${url}/v1`,
    `  Control API        ${url}/sandbox   (no signature: a local developer tool)`,
    `  Cashier pages      ${url}/cashier/{tradeNo}?key=…   (open the cashierUrl an answer gives)`,
    `  Docs               ${url}/docs`,
    `  Dashboard          ${url}/sandbox/ui`,
    "",
    idRange === "safe"
      ? `Id range: safe (every id below 2^53${omitted > 0 ? `; ${omitted} fixture records with larger ids left out` : ""}).`
      : "Id range: large (order ids above 2^53; --id-range safe for tools that round ids).",
    "",
    ...store,
    "Demo credentials (from the fixtures; test data, not secrets):",
  ];
  if (app) {
    lines.push(`  X-App-Key          ${app.appKey}`);
    lines.push(`  app secret         ${app.appSecrets[0] ?? "(none)"}`);
  }
  if (apiKey) lines.push(`  API key            ${apiKey.apiKey}   (Authorization: Bearer ${apiKey.apiKey})`);
  lines.push("", "Press Ctrl+C to stop.", "");
  return lines.join("\n");
}

/** undefined: the memory store; null: the Redis store could not be reached (reported). */
async function openNonceStore(url: string | undefined, io: CliIo): Promise<RedisNonceStore | undefined | null> {
  if (url === undefined || url === "memory") return undefined;
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--nonce-store must be "memory" or a redis:// URL, got ${JSON.stringify(redactUrl(url))}`);
  let store: RedisNonceStore;
  try {
    store = await createRedisNonceStore({ url });
  } catch (error) {
    io.stderr(`mop sandbox: --nonce-store: ${(error as Error).message}\n`);
    return null;
  }
  try {
    await store.ready();
  } catch (error) {
    await store.close();
    io.stderr(`mop sandbox: ${(error as Error).message}\n`);
    return null;
  }
  return store;
}

async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === "migrate") return migrateCommand(args.slice(1), io);
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const { text, fixtures } = readFixtures(values.fixtures);
  if (values["print-fixtures"]) {
    io.stdout(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  }
  const port = parsePort(values.port);
  const idRange = parseIdRange(values["id-range"]);
  const host = values.host ?? "127.0.0.1";
  const schedule = values["callback-schedule"] === undefined ? undefined : parseSchedule(values["callback-schedule"]);
  // Request lines go to standard output through pino's buffered writer when it is the process's
  // own (a test's io gets them as strings); warnings and errors go to stderr at once.
  const requestSink = io === processIo && !values.quiet ? fileDescriptorSink(1) : undefined;
  const logger = createJsonLogger(requestSink ?? io.stdout, { requests: !values.quiet, writeProblem: io.stderr });
  if (values["nonce-capacity"] !== undefined && values["nonce-store"] !== undefined && values["nonce-store"] !== "memory") {
    throw new UsageError("--nonce-capacity sizes the memory nonce store; with --nonce-store redis://… Redis keeps what its own memory allows (its maxmemory), so leave one of them out");
  }
  const store = storeChoice(values);
  if (store !== undefined && values["nonce-capacity"] !== undefined && values["nonce-store"] !== "memory") {
    throw new UsageError("--nonce-capacity sizes the memory nonce store; with --store postgres://… used nonces are kept in the database (add --nonce-store memory to keep them in this process instead)");
  }
  const nonceStore = await openNonceStore(values["nonce-store"], io);
  if (nonceStore === null) return 1;
  const sandbox = createSandbox({
    ...(nonceStore && { nonceStore, nonceStoreName: "redis" }),
    ...(store && { store: store.store, storeOptions: { ...store.options, ...(values["nonce-store"] === "memory" && { nonces: false }) } }),
    fixtures: values.fixtures === undefined ? undefined : text,
    logger,
    allowInsecureNotify: values["allow-insecure-notify"] ?? false,
    idRange,
    allowPrivateNotify: values["allow-private-notify"] ?? false,
    ...(values["nonce-capacity"] !== undefined && { nonceCapacity: parseCount("--nonce-capacity", values["nonce-capacity"]) }),
    quotas: {
      ...(values["max-orders-per-app"] !== undefined && { maxOrdersPerApp: parseCount("--max-orders-per-app", values["max-orders-per-app"]) }),
      ...(values["max-trades-per-app"] !== undefined && { maxTradesPerApp: parseCount("--max-trades-per-app", values["max-trades-per-app"]) }),
    },
    ...(schedule !== undefined && { callbackSchedule: schedule }),
    ...(values["public-base-url"] !== undefined && { publicBaseUrl: values["public-base-url"] }),
  });
  let listening;
  try {
    listening = await sandbox.listen({ port, host });
  } catch (error) {
    const problem = storeProblem(error);
    const code = (error as NodeJS.ErrnoException).code;
    if (problem !== undefined) io.stderr(`mop sandbox: ${problem}\n`);
    else io.stderr(`mop sandbox: cannot listen on ${host}:${port} (${code ?? (error as Error).message})${code === "EADDRINUSE" ? "; pick another with --port" : ""}\n`);
    await sandbox.close();
    await nonceStore?.close();
    return 1;
  }
  const omitted = idRange === "safe" ? safeRangeFixtures(fixtures).omitted : 0;
  io.stdout(banner(listening.url, fixtures, Math.round(performance.now()), idRange, omitted, storeLines(store?.store, values["nonce-store"])));
  const exposed = nonLoopbackWarning((listening.server.address() as AddressInfo).address);
  if (exposed !== undefined) io.stderr(`\n!!! WARNING !!!\n${exposed}\n\n`);
  void sandbox.ready().then(() => io.stdout(`Validators compiled: ready ${Math.round(performance.now())} ms after start.\n`));
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void sandbox.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await nonceStore?.close();
  requestSink?.flushSync();
  io.stdout("Sandbox stopped.\n");
  return 0;
}

export const sandboxCommand: Subcommand = async (args, io) => {
  try {
    return await run(args, io);
  } catch (error) {
    // Fixtures that do not load are a problem of the data set, not of the arguments: exit 1.
    if (!(error instanceof FixtureError)) throw error;
    io.stderr(`mop sandbox: ${error.message}\n`);
    return 1;
  }
};
