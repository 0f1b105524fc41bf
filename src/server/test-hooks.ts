// Test hooks: the part of the sandbox-control spec a server under test offers so that `mop check`
// can run the checks a checker cannot provoke alone. A real platform cannot be paid by a
// checker; with the hooks, it plays the paying user (payTrade) and tells its clock (getClock).
// Built over the control spec with the kit's pipeline (validation, envelopes, exact ids), so a
// hook answers exactly what the sandbox's control API answers. For test environments only: the
// hooks take no signature, and creating them with NODE_ENV=production is refused.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { operations as ControlOperations } from "../../generated/sandbox-control.js";
import type { sandboxControlOperations } from "../../generated/sandbox-control.operations.js";
import type { DispatchHandler } from "./dispatch.js";
import { ServerConfigError, signedError } from "./errors.js";
import type { OperationHandlers } from "./handlers.js";
import { isJsonContentType } from "./body.js";
import { formatUtcSeconds } from "./callback-sender.js";
import { serverLogger, type ServerLogger } from "./logger.js";
import { createOperationRouter } from "./router.js";

/** Every operation of the sandbox-control spec, typed from it. */
export type ControlHandlers = OperationHandlers<ControlOperations, typeof sandboxControlOperations>;
export type ControlOperationId = keyof ControlHandlers;

/**
 * The hooks `mop check` uses: `payTrade` (the user pays a trade: it becomes SUCCESS, its order
 * paid, and payment.succeeded is sent) for callbacks.payment-succeeded, state.paid-order-lifecycle,
 * idempotency.out-refund-no, responses.refundOrder and responses.writeOffOrder; `getClock` (the
 * checker finds the hooks by it and reads the server's clock) is answered from `now` unless given.
 * Any other control operation may be given too; those left out answer 100015.
 */
export type TestHooks = Pick<ControlHandlers, "payTrade"> & Partial<Omit<ControlHandlers, "payTrade">>;

export interface TestHooksOptions {
  hooks: TestHooks;
  /** The server's clock (epoch ms), for the default getClock. Default Date.now. */
  now?: () => number;
  /** How getClock writes `now`. Default ISO 8601 UTC in whole seconds. */
  formatTime?: (epochMs: number) => string;
  logger?: ServerLogger;
  /** Create the hooks although NODE_ENV is "production" (a production-like test environment). Default false. */
  allowInProduction?: boolean;
}

/**
 * A state-changing hook must say Content-Type: application/json, body or not: a web page can
 * send that to another origin only after a CORS preflight, which these hooks never grant.
 */
function requireJsonOnStateChange(req: Request, _res: Response, next: NextFunction): void {
  if (req.method === "GET" || req.method === "HEAD" || isJsonContentType(req.headers["content-type"])) return next();
  next(signedError("UNSUPPORTED_MEDIA_TYPE", "A test hook that changes state must be sent with Content-Type: application/json, even without a body."));
}

/**
 * The test hooks as an Express request handler: mount it where `mop check --control-url` points
 * (by default `{base-url}/sandbox`), in test environments only:
 *
 * ```js
 * if (process.env.MOP_TEST_HOOKS === "1") app.use("/sandbox", createTestHooksRouter({ hooks: { payTrade } }));
 * ```
 */
export function createTestHooksRouter(options: TestHooksOptions): RequestHandler {
  if (process.env.NODE_ENV === "production" && options.allowInProduction !== true) {
    throw new ServerConfigError("NODE_ENV", "createTestHooksRouter refuses to run with NODE_ENV=production: the test hooks take no signature and can mark any trade paid. Mount them only in test environments (or pass allowInProduction: true for a production-like test environment).");
  }
  if (typeof options.hooks?.payTrade !== "function") throw new ServerConfigError("hooks", "createTestHooksRouter needs hooks.payTrade: the checks that need a paid trade call it.");
  const now = options.now ?? Date.now;
  const formatTime = options.formatTime ?? formatUtcSeconds;
  const getClock: ControlHandlers["getClock"] = () => {
    const epochMs = now();
    return { now: formatTime(epochMs), epochMs, offsetSeconds: 0 };
  };
  return createOperationRouter({
    spec: "sandbox-control",
    dialect: "signed",
    logger: serverLogger(options.logger),
    first: [requireJsonOnStateChange],
    beforeBody: [],
    afterBody: [],
    checks: [],
    handlers: { getClock, ...options.hooks } as unknown as Record<string, DispatchHandler>,
    facts: () => ({}),
  });
}
