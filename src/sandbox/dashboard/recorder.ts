// The dashboard's memory of the latest requests: a small ring buffer filled by a middleware
// that runs for every request (whatever the logger does), so the page can show what happened
// without the developer reading JSON lines.
import type { NextFunction, Request, Response } from "express";
import { formatPlatformTime, type SandboxClock } from "../clock.js";
import type { SignatureRefusal } from "./refusal.js";
import { requestState } from "../../server/index.js";

export interface RecordedRequest {
  /** Sandbox clock, platform time zone. */
  time: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  /** The envelope's code, when the answer had one. */
  code: number | null;
  durationMs: number;
  /** For a refused signature: what arrived and the string the sandbox expected to be signed. */
  signature: SignatureRefusal | null;
}

export interface RequestRecorder {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /** Newest first. */
  list(): RecordedRequest[];
  clear(): void;
}

/** The latest `capacity` requests; the dashboard's own requests are not recorded (it polls). */
export function createRequestRecorder(clock: SandboxClock, capacity = 100): RequestRecorder {
  let records: RecordedRequest[] = [];
  return {
    middleware(req, res, next) {
      const path = req.originalUrl.split("?")[0] ?? req.path;
      if (path.startsWith("/sandbox/ui")) return next();
      const started = performance.now();
      const time = formatPlatformTime(clock.now());
      res.on("finish", () => {
        const operationId = (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
        records.push({
          time,
          method: req.method,
          path,
          operationId: operationId ?? (res.locals.operationId as string | undefined) ?? null,
          status: res.statusCode,
          code: (requestState(res).envelopeCode as number | undefined) ?? null,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          signature: (res.locals.signatureRefusal as SignatureRefusal | undefined) ?? null,
        });
        if (records.length > capacity) records = records.slice(-capacity);
      });
      next();
    },
    list: () => [...records].reverse(),
    clear() {
      records = [];
    },
  };
}
