// The sandbox: a local, stateful stand-in for the Merchant Open Platform. It serves the signed
// interface (/open-api/v1 and /open-api), the key-based interface (/v1), its own control API
// (/sandbox) and a cashier page (/cashier/{tradeNo}), validates every request and answer against
// the bundled specs, and sends signed callbacks. See docs/sandbox.md.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { Express } from "express";
import { SignedErrors } from "../../generated/error-codes.js";
import { createSandboxApp } from "./app.js";
import { createRateLimiter } from "../server/index.js";
import { warmUpValidators } from "../server/internal.js";
import { createCallbackDispatcher, DEFAULT_CALLBACK_SCHEDULE_MS, type CallbackDeliveryRecord, type CallbackDispatcher } from "./callbacks/dispatcher.js";
import { createSandboxClock, type Clock, type SandboxClock } from "./clock.js";
import type { SandboxContext } from "./context.js";
import { defaultFixtures, parseFixtures, type SandboxFixtures } from "./fixtures/load.js";
import { createQuietLogger, type SandboxLogger } from "./logger.js";
import { createMemoryNonceStore, type NonceStore } from "../signing/index.js";
import { DEFAULT_STORE_QUOTAS, type StoreQuotas } from "./store/memory.js";
import { openRecords, type StoreChoice, type StoreOptions } from "./store/open.js";
import { ID_RANGES as ID_RANGE_NAMES, safeRangeFixtures, type IdRange } from "./domain/id-range.js";
import { createCashierKeys } from "./cashier-key.js";
import { deliveryTargetProblem, type Lookup, type NotifyPolicy } from "./notify-target.js";
import { ServedHosts } from "./site-guard.js";
import { applyServerLimits, resolveServerLimits, serverOptions, type ServerLimits } from "./server-limits.js";
import type { SandboxRecords } from "./store/types.js";
import { SandboxConfigError } from "./errors.js";
import { healthReport, type HealthReport } from "./health.js";
import { listeningFetch, ListenSessions } from "./listen/sessions.js";
import { expireDueTrades } from "./domain/payments.js";

/** How often an instance sharing its records settles the trades the clock made due. */
const DUE_TRADES_SWEEP_MS = 5000;
import { Scenarios } from "./scenarios/scenarios.js";

export { DEFAULT_CALLBACK_SCHEDULE_MS, newEventId, type CallbackAttempt, type CallbackDispatcher, type CallbackDeliveryRecord } from "./callbacks/dispatcher.js";
/** @deprecated The former name of CallbackDeliveryRecord (a CallbackEvent is a payload, from the package root). */
export type CallbackEvent = CallbackDeliveryRecord;
export { createSandboxClock, formatPlatformTime, type Clock, type SandboxClock } from "./clock.js";
export { defaultFixtures, defaultFixturesText, FixtureError, fixturesDir, parseFixtures, type SandboxFixtures } from "./fixtures/load.js";
export { createJsonLogger, createQuietLogger, fileDescriptorSink, type LogSink, type RequestLogRecord, type SandboxLogger } from "./logger.js";
export { ORDER_ID_BASE } from "./domain/orders.js";
export { ID_RANGES, idsRoundingTo, safeRangeFixtures, type IdRange } from "./domain/id-range.js";
export { createMemoryStore, DEFAULT_STORE_QUOTAS, type MemoryStoreOptions, type StoreQuotas } from "./store/memory.js";
export { StoreConflictError, StoreUnavailableError } from "./store/rules.js";
export { describeStore, isPostgresUrl, migrateStore, redactPostgresUrl, type MigrationOutcome, type StoreChoice, type StoreOptions } from "./store/open.js";
export type { StoreOpenReport } from "./store/postgres/records.js";
export type { HealthReport } from "./health.js";
export { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./server-limits.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { SandboxConfigError } from "./errors.js";
/** Nonces the sandbox remembers at once: their 601 s lifetime at about 1,660 signed requests per second. */
export const SANDBOX_NONCE_CAPACITY = 1_000_000;
export type * from "./store/types.js";

export interface SandboxOptions {
  /** Fixtures as JSON text or an object in the fixture format (fixtures.schema.json). Default: the default data set. */
  fixtures?: string | object;
  /** The base clock in epoch ms; the sandbox adds the offset the control API moves. Default Date.now. */
  clock?: Clock;
  /** Delays between callback attempts, in ms. Default DESIGN item 8's 15 retries over about 24 h. */
  callbackSchedule?: readonly number[];
  /** How long a callback receiver has to answer 2xx. Default 5000 ms. */
  callbackTimeoutMs?: number;
  /** Accept http:// notifyUrls on loopback hosts (127.0.0.0/8, ::1, localhost). Default false. */
  allowInsecureNotify?: boolean;
  /**
   * Send callbacks to private, link-local and other non-public addresses (and loopback without
   * allowInsecureNotify). Default false: such notifyUrls are refused (100009) and deliveries to
   * names resolving to them are not made.
   */
  allowPrivateNotify?: boolean;
  /** How delivery resolves a notifyUrl host (for tests). Default: the system resolver. */
  resolveHost?: Lookup;
  /** The base of cashierUrl. Default: the URL the sandbox listens on. */
  publicBaseUrl?: string;
  /** Where logs go. Default: quiet (no request lines; internal errors still reach stderr). */
  logger?: SandboxLogger;
  /** The fetch used to deliver callbacks. Default globalThis.fetch. */
  fetch?: typeof fetch;
  /**
   * Most nonces remembered at once (each for 601 s: two signature windows and a second). Default
   * 1,000,000 (about 90 MB at most); when full, signed requests are refused with 100006 rather
   * than a nonce forgotten early.
   */
  nonceCapacity?: number;
  /**
   * Where used nonces are recorded instead of the memory store, e.g. a Redis store shared by
   * several sandboxes (createRedisNonceStore). The caller closes it.
   */
  nonceStore?: NonceStore;
  /**
   * "large" (default): order ids above 2^53, so a client that rounds ids is caught. "safe": every
   * id the sandbox answers with stays below 2^53, for tools that parse ids as doubles; fixture
   * records with larger ids (and authorisations of them) are left out.
   */
  idRange?: IdRange;
  /**
   * Host names answered besides loopback names, the listen address, the publicBaseUrl host and
   * IP literals (a request naming another host is refused with 100017: DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** Orders and trades one app may hold (DEFAULT_STORE_QUOTAS: 2,000 and 10,000); beyond, 100018. */
  quotas?: Partial<StoreQuotas>;
  /** Timeouts and the connection cap of the HTTP server listen() starts (DEFAULT_SERVER_LIMITS). */
  server?: Partial<ServerLimits>;
  /**
   * Where the records live: "memory" (default: this process, gone when it stops) or a
   * postgres:// URL, for a team: several instances share it, and a restart loses nothing
   * (docs/team-sandbox.md). With PostgreSQL, used nonces are kept there too unless
   * `nonceStore` names another store.
   */
  store?: StoreChoice;
  /** Settings of a PostgreSQL store (pool size, migrations, leases). */
  storeOptions?: StoreOptions;
  /** What the health report (GET /sandbox/health) calls the nonceStore given, e.g. "redis". Default "custom". */
  nonceStoreName?: string;
}

export interface ListeningSandbox {
  /** e.g. http://127.0.0.1:4010 */
  url: string;
  port: number;
  server: Server;
  /** Stops the server (open connections included) and the callback timers. */
  close(): Promise<void>;
}

export interface Sandbox {
  app: Express;
  /** Opens the store (a database: connects, migrates, loads the fixtures once), then listens. Rejects with StoreUnavailableError when the store cannot be opened. */
  listen(options?: { port?: number; host?: string }): Promise<ListeningSandbox>;
  state: SandboxRecords;
  /** Settles when the store is open (a database reached, migrated, its fixtures checked); rejects when it cannot be. */
  opened(): Promise<void>;
  /** Whether the store and the nonce store answer now (GET /sandbox/health). */
  health(): Promise<HealthReport>;
  clock: SandboxClock;
  callbacks: CallbackDispatcher;
  /** Settles when the validators of all three specs are compiled (listen() starts that). */
  ready(): Promise<void>;
  /** Stops every server started by listen() and the callback timers, and closes a store it opened (a nonce store passed in stays open). */
  close(): Promise<void>;
}

function loadFixtureOption(fixtures: string | object | undefined, idRange: IdRange): SandboxFixtures {
  const loaded = fixtures === undefined ? defaultFixtures() : parseFixtures(fixtures);
  return idRange === "safe" ? safeRangeFixtures(loaded).fixtures : loaded;
}

/** Malformed or too slow HTTP never reaches Express; answer it with an envelope too. */
function clientErrorResponse(error: NodeJS.ErrnoException, limits: ServerLimits): string {
  const [status, msg] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? ["431 Request Header Fields Too Large", "The request headers are too large."]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ["408 Request Timeout", `The request was not received in time: headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms.`]
        : ["400 Bad Request", "The request is not valid HTTP."];
  const body = JSON.stringify({ code: SignedErrors.VALIDATION_FAILED.code, msg, data: null });
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** 127.0.0.0/8, ::1 and ::ffff:127.x: only this machine can connect. */
export function isLoopbackAddress(address: string): boolean {
  return /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address) || address === "::1";
}

/** The warning listen() logs for an address other machines can reach; undefined for loopback. */
export function nonLoopbackWarning(address: string): string | undefined {
  if (isLoopbackAddress(address)) return undefined;
  return (
    `The sandbox listens on ${address}, which is not a loopback address: anyone who can reach it can use the control API ` +
    "(no authentication by design), pay trades and reset data. Listen on 127.0.0.1 unless the network is trusted."
  );
}

/** Each app gets an equal share of the capacity, so one app cannot starve the others (at least 4 shares). */
function sandboxNonceStore(capacity: number, apps: number): NonceStore {
  return createMemoryNonceStore({ capacity, perAppCapacity: Math.max(1, Math.floor(capacity / Math.max(4, apps))) });
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const idRange = options.idRange ?? "large";
  if (!(ID_RANGE_NAMES as readonly unknown[]).includes(idRange)) {
    throw new SandboxConfigError("idRange", `createSandbox: idRange must be "large" or "safe", got ${JSON.stringify(idRange)}`);
  }
  const fixtures = loadFixtureOption(options.fixtures, idRange);
  const serverLimits = resolveServerLimits(options.server);
  const logger = options.logger ?? createQuietLogger();
  const clock = createSandboxClock(options.clock);
  const quotas = { ...DEFAULT_STORE_QUOTAS, ...options.quotas };
  const store = openRecords(options.store, { fixtures, quotas, clock, logger, ...options.storeOptions });
  const notifyPolicy: NotifyPolicy = { allowLoopback: options.allowInsecureNotify ?? false, allowPrivate: options.allowPrivateNotify ?? false };
  const callbackTimeoutMs = options.callbackTimeoutMs ?? 5000;
  // An app with a `mop listen` session here has its callbacks forwarded to it, whatever its notifyUrl.
  const listenSessions = new ListenSessions(store.records.listeners, logger);
  const callbacks = createCallbackDispatcher({
    checkTarget: (url, delivery) => (listenSessions.has(delivery.appKey) ? Promise.resolve(undefined) : deliveryTargetProblem(url, notifyPolicy, options.resolveHost)),
    clock,
    logger,
    scheduleMs: options.callbackSchedule ?? DEFAULT_CALLBACK_SCHEDULE_MS,
    timeoutMs: callbackTimeoutMs,
    fetch: listeningFetch(listenSessions, options.fetch ?? ((input, init) => fetch(input, init)), callbackTimeoutMs),
    // The app's first secret signs each attempt (ctx exists by the time anything is sent).
    apps: (appKey) => ctx.records.app(appKey),
    log: store.records.callbackLog,
    ...(store.records.shared && { pollIntervalMs: store.pollIntervalMs }),
  });
  let listenUrl: string | undefined;
  const servedHosts = new ServedHosts();
  servedHosts.addUrl(options.publicBaseUrl);
  for (const host of options.allowedHosts ?? []) servedHosts.add(host);
  const ctx: SandboxContext = {
    records: store.records,
    listenSessions,
    callbackTimeoutMs,
    clock,
    callbacks,
    logger,
    nonceStore: options.nonceStore ?? store.nonceStore ?? sandboxNonceStore(options.nonceCapacity ?? SANDBOX_NONCE_CAPACITY, fixtures.apps.length),
    nonceStoreKind: options.nonceStore ? (options.nonceStoreName ?? "custom") : store.nonceStore ? "postgres" : "memory",
    rateLimiter: createRateLimiter(clock),
    allowInsecureNotify: options.allowInsecureNotify ?? false,
    idRange,
    notifyPolicy,
    publicBaseUrl: (requestOrigin) => (options.publicBaseUrl ?? listenUrl ?? requestOrigin).replace(/\/+$/, ""),
    servedHosts,
    cashierKeys: createCashierKeys(),
    // Redeliveries go out as the callbacks do: the same fetch, timeout and notify-target policy.
    scenarios: new Scenarios(store.records.faults, {
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      timeoutMs: options.callbackTimeoutMs ?? 5000,
      checkTarget: (url) => deliveryTargetProblem(url, notifyPolicy, options.resolveHost),
    }),
  };
  // Opened once: the records, then the deliveries they keep (resumed after a restart).
  const opened = store.open().then((report) => {
    // Instances sharing a database derive cashier keys from its one secret.
    if (report?.cashierKeySecret) ctx.cashierKeys = createCashierKeys(report.cashierKeySecret);
    return callbacks.start();
  });
  // Nothing waits on it here; listen() and each request do, and report its failure.
  opened.catch(() => undefined);
  ctx.opened = opened;
  // Records shared by several instances: each settles now and then what the clock made due (an
  // UNKNOWN payment's result, and its callback), so nothing waits on an instance that stopped.
  let sweeper: NodeJS.Timeout | undefined;
  let closing = false;
  if (store.records.shared) {
    void opened.then(() => {
      if (closing) return;
      sweeper = setInterval(() => void expireDueTrades(ctx).catch((error: unknown) => logger.warn("Due trades could not be settled now; trying again shortly.", { error })), DUE_TRADES_SWEEP_MS);
      sweeper.unref();
    }, () => undefined);
  }
  const app = createSandboxApp(ctx);
  const servers = new Set<ListeningSandbox>();

  async function listen({ port = 0, host = "127.0.0.1" }: { port?: number; host?: string } = {}): Promise<ListeningSandbox> {
    await opened;
    const server = createServer(serverOptions(serverLimits), app);
    applyServerLimits(server, serverLimits);
    server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
      if (socket.writable) socket.end(clientErrorResponse(error, serverLimits));
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    servedHosts.add(host);
    const warning = nonLoopbackWarning(address.address);
    if (warning !== undefined) logger.warn(warning, { host, address: address.address });
    const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
    listenUrl ??= url;
    const handle: ListeningSandbox = {
      url,
      port: address.port,
      server,
      close: async () => {
        servers.delete(handle);
        await listenSessions.close();
        await callbacks.close();
        ctx.scenarios.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      },
    };
    servers.add(handle);
    // Compile the specs' validators now rather than on the first request (shared per process).
    setImmediate(() => void warmUpValidators());
    return handle;
  }

  return {
    app,
    listen,
    state: ctx.records,
    clock,
    callbacks,
    ready: warmUpValidators,
    opened: () => opened,
    health: () => healthReport(ctx),
    async close() {
      closing = true;
      clearInterval(sweeper);
      await listenSessions.close();
      await callbacks.close();
      ctx.scenarios.close();
      await Promise.all([...servers].map((server) => server.close()));
      await store.close();
    },
  };
}
