// What a request meets before any interface when the records may be shared or far away: the
// store is open (a database reached, migrated), and with records shared by several instances
// the clock offset is read afresh, so an advance made through one instance holds on all at once.
// A store that cannot be reached answers 503 with Retry-After in the interface's own dialect
// (the internal-error code: nothing was changed, retry), never an accepted request that was not
// stored.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { failureEnvelope } from "../contract/index.js";
import { RefusalError } from "../server/index.js";
import { sendRaw } from "../server/internal.js";
import type { SandboxContext } from "./context.js";
import { StoreUnavailableError } from "./store/rules.js";

/** Seconds a client is asked to wait before retrying while the store is away. */
export const STORE_RETRY_AFTER_SECONDS = 1;

function unavailableMessage(error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return `The sandbox cannot reach its store now (${why}); nothing was changed. Retry after ${STORE_RETRY_AFTER_SECONDS} s.`;
}

/** A StoreUnavailableError as the refusal the kit answers: the internal-error code with HTTP 503 and Retry-After. */
export function storeRefusal(error: StoreUnavailableError, dialect: "signed" | "keyed" = "signed"): RefusalError {
  const entry = dialect === "keyed" ? KeyedErrors.KEYED_INTERNAL_ERROR : SignedErrors.INTERNAL_ERROR;
  return new RefusalError(dialect === "keyed" ? "KEYED_INTERNAL_ERROR" : "INTERNAL_ERROR", { code: entry.code, http: 503 }, unavailableMessage(error), {
    "Retry-After": String(STORE_RETRY_AFTER_SECONDS),
  });
}

/** Wraps a table of handlers so that a store outage inside one is answered 503, not as a sandbox bug. */
export function answeringStoreOutages<T extends Record<string, (...args: never[]) => unknown>>(handlers: T, dialect: "signed" | "keyed" = "signed"): T {
  const wrapped: Record<string, unknown> = {};
  for (const [operationId, handler] of Object.entries(handlers)) {
    wrapped[operationId] = async (...args: never[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        throw error instanceof StoreUnavailableError ? storeRefusal(error, dialect) : error;
      }
    };
  }
  return wrapped as T;
}

function sendUnavailable(req: Request, res: Response, error: unknown): void {
  res.setHeader("Retry-After", String(STORE_RETRY_AFTER_SECONDS));
  const message = unavailableMessage(error);
  if (req.baseUrl === "/cashier") {
    res.status(503).type("html").send(`<!doctype html><html lang="en"><title>Unavailable</title><p>${message.replace(/[<>&]/g, "")}</p></html>`);
    return;
  }
  const keyed = req.baseUrl === "/v1";
  const entry = keyed ? KeyedErrors.KEYED_INTERNAL_ERROR : SignedErrors.INTERNAL_ERROR;
  sendRaw(res, 503, failureEnvelope(keyed ? "keyed" : "signed", entry.code, message));
}

/** A step of an interface's pipeline (a check) whose store outage is answered 503, not as a sandbox bug. */
export function answeringStoreOutagesIn(step: RequestHandler, dialect: "signed" | "keyed"): RequestHandler {
  const mapped = (error: unknown) => (error instanceof StoreUnavailableError ? storeRefusal(error, dialect) : error);
  return async (req, res, next) => {
    try {
      await step(req, res, (error?: unknown) => (error === undefined ? next() : next(mapped(error))));
    } catch (error) {
      next(mapped(error));
    }
  };
}

/** The dashboard's page, script and stylesheet need no store; its state and actions do. */
const DASHBOARD_FILES = /^\/ui(\/(dashboard\.(js|css))?)?$/;

/** Mounted at /open-api, /v1, /sandbox (its health check answers before) and /cashier. */
export function storeGuard(ctx: SandboxContext): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.baseUrl === "/sandbox" && DASHBOARD_FILES.test(req.path)) return next();
    try {
      await ctx.opened;
      if (ctx.records.shared) ctx.clock.setOffset(await ctx.records.clockOffset.read());
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) return next(error);
      return sendUnavailable(req, res, error);
    }
    next();
  };
}
