// Structured logs: one JSON line per request, and loud lines for what must never happen
// (internal errors, answers that failed response validation, callbacks given up).
import type { NextFunction, Request, Response } from "express";
import { requestState } from "../server/index.js";

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

export interface JsonLoggerOptions {
  /** Write request lines (default true). */
  requests?: boolean;
  /** Where warnings and errors go (default: the same writer). */
  writeProblem?: (line: string) => void;
}

/** A logger writing each record as one JSON line. */
export function createJsonLogger(write: (line: string) => void, options: JsonLoggerOptions = {}): SandboxLogger {
  const requests = options.requests ?? true;
  const writeProblem = options.writeProblem ?? write;
  const line = (level: string, message: string, details?: Record<string, unknown>) =>
    writeProblem(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...details }, jsonReplacer)}\n`);
  return {
    request: (record) => {
      if (requests) write(`${JSON.stringify({ level: "info", ...record })}\n`);
    },
    requestsEnabled: requests,
    warn: (message, details) => line("warn", message, details),
    error: (message, details) => line("error", message, details),
  };
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** The default: no request lines, but errors still reach stderr (they mean a bug). */
export function createQuietLogger(): SandboxLogger {
  const loud = createJsonLogger(() => {}, { requests: false, writeProblem: (text) => process.stderr.write(text) });
  return { request: () => {}, requestsEnabled: false, warn: () => {}, error: loud.error };
}

/** Logs every request once it has been answered (nothing at all when the logger drops request records). */
export function requestLogger(logger: SandboxLogger) {
  if (logger.requestsEnabled === false) return (_req: Request, _res: Response, next: NextFunction): void => next();
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const path = req.originalUrl.split("?")[0] ?? req.path;
    res.on("finish", () => {
      const operationId = (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
      const code = requestState(res).envelopeCode as number | undefined;
      logger.request({
        time: new Date().toISOString(),
        method: req.method,
        path,
        operationId: operationId ?? (res.locals.operationId as string | undefined) ?? null,
        code: code ?? null,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    });
    next();
  };
}
