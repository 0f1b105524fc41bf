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

/** What is kept per request: the sandbox clock's reading, formatted only when the dashboard asks. */
type Kept = Omit<RecordedRequest, "time"> & { atMs: number };

/**
 * The latest `capacity` requests in a ring (no array copied per request); the dashboard's own
 * requests are not recorded (it polls).
 */
export function createRequestRecorder(clock: SandboxClock, capacity = 100): RequestRecorder {
  let ring: (Kept | undefined)[] = new Array<Kept | undefined>(capacity);
  let next = 0;
  let count = 0;
  return {
    middleware(req, res, next_) {
      const url = req.originalUrl;
      const query = url.indexOf("?");
      const path = query === -1 ? url : url.slice(0, query);
      if (path.startsWith("/sandbox/ui")) return next_();
      const started = performance.now();
      const atMs = clock.now();
      res.once("finish", () => {
        const operationId = (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
        ring[next] = {
          atMs,
          method: req.method,
          path,
          operationId: operationId ?? (res.locals.operationId as string | undefined) ?? null,
          status: res.statusCode,
          code: (requestState(res).envelopeCode as number | undefined) ?? null,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          signature: (res.locals.signatureRefusal as SignatureRefusal | undefined) ?? null,
        };
        next = (next + 1) % capacity;
        count = Math.min(count + 1, capacity);
      });
      next_();
    },
    list() {
      const newestFirst: RecordedRequest[] = [];
      for (let i = 1; i <= count; i++) {
        const kept = ring[(next - i + capacity) % capacity];
        if (!kept) continue;
        const { atMs, ...rest } = kept;
        newestFirst.push({ time: formatPlatformTime(atMs), ...rest });
      }
      return newestFirst;
    },
    clear() {
      ring = new Array<Kept | undefined>(capacity);
      next = 0;
      count = 0;
    },
  };
}
