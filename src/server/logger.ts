// What the kit logs, at four levels: an internal error or an answer that broke the spec
// (error), a store that failed closed or a callback given up (warn), a store back after a
// failure (info), each callback attempt (debug). Request lines are the application's business
// (any middleware before the router).
//
// A logger needs `error`; the other levels are optional, so a logger written for the kit's
// first release ({ error }) still fits. Pino's methods take (details, message), the other way
// round, and pino writes an Error under any key but `err` as {}: pinoServerLogger adapts one,
// and a pino logger passed as is is recognised and adapted (serverLogger).

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogDetails = Record<string, unknown>;

export interface ServerLogger {
  error(message: string, details?: LogDetails): void;
  warn?(message: string, details?: LogDetails): void;
  info?(message: string, details?: LogDetails): void;
  debug?(message: string, details?: LogDetails): void;
}

/** Every level present: what the kit's parts call. */
export type LevelledLogger = Required<ServerLogger>;

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** An Error as plain data, its stack and causes kept (what pino's err serializer writes). */
export function errorDetails(error: Error): Record<string, unknown> {
  const plain: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  for (const [key, value] of Object.entries(error)) if (!(key in plain)) plain[key] = value;
  if (error.cause !== undefined) plain.cause = error.cause instanceof Error ? errorDetails(error.cause) : error.cause;
  return plain;
}

/** Details with every Error (at the top level, and in an array there) turned into data, so no writer drops its stack. */
export function withErrorDetails(details: LogDetails | undefined): LogDetails {
  const out: LogDetails = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    out[key] = value instanceof Error ? errorDetails(value) : Array.isArray(value) ? value.map((item: unknown) => (item instanceof Error ? errorDetails(item) : item)) : value;
  }
  return out;
}

function jsonLine(level: LogLevel, message: string, details: LogDetails | undefined): string {
  return `${JSON.stringify({ level, time: new Date().toISOString(), message, ...withErrorDetails(details) }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))}\n`;
}

/** JSON lines on stderr from `minLevel` up (default warn: a quiet server logs only what an operator must see). */
export function createStderrLogger(minLevel: LogLevel = "warn"): LevelledLogger {
  const at = (level: LogLevel) => (message: string, details?: LogDetails) => {
    if (LEVEL_ORDER[level] >= LEVEL_ORDER[minLevel]) process.stderr.write(jsonLine(level, message, details));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** The default: warnings and errors to stderr as one JSON line each. */
export const stderrLogger: LevelledLogger = createStderrLogger("warn");

/** The part of a pino logger (or any logger with pino's argument order) the adapter uses. */
export interface PinoLike {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
  debug(details: object, message: string): void;
}

/**
 * A kit logger over pino: `createSignedRouter({ logger: pinoServerLogger(pino()) })`. Details
 * go first as pino expects (a plain call would read them as format arguments and drop them),
 * Errors with their stacks and causes, bigints as pino writes them (exact JSON numbers).
 */
export function pinoServerLogger(pino: PinoLike): LevelledLogger {
  const at = (level: LogLevel) => (message: string, details?: LogDetails) => pino[level](withErrorDetails(details), message);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** pino and its children have these; a hand-written { error } logger does not. */
function looksLikePino(logger: unknown): logger is PinoLike {
  const candidate = logger as { child?: unknown; bindings?: unknown; levels?: { values?: unknown } } | null;
  return typeof candidate?.child === "function" && typeof candidate.bindings === "function" && typeof candidate.levels?.values === "object";
}

/**
 * The logger the kit's parts use: every level present (missing ones do nothing, so a
 * `{ error }` logger hears only errors, as before), a pino logger passed as is adapted, and a
 * logger that throws never breaks the request that logged.
 */
export function serverLogger(logger: ServerLogger | undefined): LevelledLogger {
  if (logger === undefined) return stderrLogger;
  const source: ServerLogger = looksLikePino(logger) ? pinoServerLogger(logger) : (logger as ServerLogger);
  const at = (level: LogLevel) => {
    const write = source[level]?.bind(source);
    if (!write) return () => {};
    return (message: string, details?: LogDetails) => {
      try {
        write(message, details);
      } catch {
        // A failing logger must not turn a logged problem into a failed request.
      }
    };
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
