// Structured logs through pino: one JSON line per request, and loud lines for what must never
// happen (internal errors, answers that failed response validation, callbacks given up).
import type { NextFunction, Request, Response } from "express";
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { requestState, requestSummary } from "../server/index.js";
import { isDashboardRead } from "./dashboard/recorder.js";

export interface RequestLogRecord {
  time: string;
  method: string;
  path: string;
  operationId: string | null;
  code: number | null;
  status: number;
  durationMs: number;
}

export interface SandboxLogger {
  request(record: RequestLogRecord): void;
  /** false when request() drops every record, so the sandbox need not build them. Default true. */
  readonly requestsEnabled?: boolean;
  /** Something the developer should see (a callback given up, a fixture quirk). */
  warn(message: string, details?: Record<string, unknown>): void;
  /** A sandbox bug or broken invariant: an internal error, an invalid answer. */
  error(message: string, details?: Record<string, unknown>): void;
}

/** Where lines go: a function taking each line, or a stream such as `pino.destination()`. */
export type LogSink = ((line: string) => void) | DestinationStream;

export interface JsonLoggerOptions {
  /** Write request lines (default true). */
  requests?: boolean;
  /** Where warnings and errors go (default: the same sink). */
  writeProblem?: LogSink;
}

// The line keeps the shape it had before pino wrote it: "level" as a word, the record's own
// ISO "time" (no second clock read), no pid or hostname, and "message" for warnings and errors.
// Bigints are written as exact JSON numbers, as the API writes int64 ids.
const LINE_SHAPE: LoggerOptions = {
  base: null,
  timestamp: false,
  messageKey: "message",
  formatters: { level: (label) => ({ level: label }) },
  serializers: { error: stdSerializers.err, err: stdSerializers.err },
};

const asStream = (sink: LogSink): DestinationStream => (typeof sink === "function" ? { write: (line: string) => void sink(line) } : sink);

/**
 * Lines straight to a file descriptor (1: standard output) through pino's buffered writer:
 * lines written while a write is in progress go out together in the next one. Call
 * `flushSync()` before the process writes anything else on the way out.
 */
export function fileDescriptorSink(fd: number): DestinationStream & { flushSync(): void } {
  return pino.destination({ dest: fd, sync: false, minLength: 0 });
}

/** A logger writing each record as one JSON line (pino). */
export function createJsonLogger(write: LogSink, options: JsonLoggerOptions = {}): SandboxLogger {
  const requests = options.requests ?? true;
  const requestLog: Logger | undefined = requests ? pino(LINE_SHAPE, asStream(write)) : undefined;
  const problemLog = pino(LINE_SHAPE, asStream(options.writeProblem ?? write));
  const problem = (level: "warn" | "error", message: string, details?: Record<string, unknown>) =>
    problemLog[level]({ time: new Date().toISOString(), ...details }, message);
  return {
    request: requestLog ? (record) => requestLog.info(record) : () => {},
    requestsEnabled: requests,
    warn: (message, details) => problem("warn", message, details),
    error: (message, details) => problem("error", message, details),
  };
}

/** The default: no request lines, but errors still reach stderr (they mean a bug). */
export function createQuietLogger(): SandboxLogger {
  const loud = createJsonLogger(() => {}, { requests: false, writeProblem: (text) => process.stderr.write(text) });
  return { request: () => {}, requestsEnabled: false, warn: () => {}, error: loud.error };
}

/**
 * Logs every request once it has been answered (nothing at all when the logger drops request
 * records), except the dashboard's own reads: an open dashboard polls every second and would
 * bury the lines a developer looks for. The dashboard counts them instead (its "own requests").
 */
export function requestLogger(logger: SandboxLogger) {
  if (logger.requestsEnabled === false) return (_req: Request, _res: Response, next: NextFunction): void => next();
  return (req: Request, res: Response, next: NextFunction): void => {
    const url = req.originalUrl;
    const query = url.indexOf("?");
    if (isDashboardRead(req.method, query === -1 ? url : url.slice(0, query))) return next();
    // The request's clock starts here (its state's startedAt).
    requestState(res);
    res.once("finish", () => {
      const summary = requestSummary(req, res);
      logger.request({
        time: new Date().toISOString(),
        method: summary.method,
        path: summary.path,
        operationId: summary.operationId,
        code: summary.code,
        status: summary.status,
        durationMs: summary.durationMs,
      });
    });
    next();
  };
}
