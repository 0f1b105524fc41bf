// The control API at /sandbox: no signature (a local developer tool), otherwise the server kit's
// pipeline over its own spec (openapi/sandbox-control). State-changing requests are refused
// from other origins' pages and must be application/json (site-guard.ts).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { signedError } from "../../server/index.js";
import { createOperationRouter, isJsonContentType, type DispatchHandler } from "../../server/internal.js";
import { refuseCrossOrigin } from "../site-guard.js";
import type { SandboxContext } from "../context.js";
import { controlOperations } from "../control.js";
import { answeringStoreOutages } from "../store-guard.js";

/**
 * A state-changing control request must say Content-Type: application/json, body or not: a web
 * page can send that to another origin only after a CORS preflight, which the sandbox never
 * grants, so no form or simple fetch on any site can pay, close or reset.
 */
function requireJsonOnStateChange(req: Request, _res: Response, next: NextFunction): void {
  if (req.method === "GET" || req.method === "HEAD" || isJsonContentType(req.headers["content-type"])) return next();
  next(
    signedError(
      "UNSUPPORTED_MEDIA_TYPE",
      `A control request that changes state must be sent with Content-Type: application/json, even without a body (so that no web page can send it); got ${req.headers["content-type"] ? JSON.stringify(req.headers["content-type"].slice(0, 80)) : "none"}. With curl: -H 'Content-Type: application/json'.`,
    ),
  );
}

export function controlRouter(ctx: SandboxContext): RequestHandler {
  return createOperationRouter({
    spec: "sandbox-control",
    dialect: "signed",
    logger: ctx.logger,
    first: [refuseCrossOrigin, requireJsonOnStateChange],
    beforeBody: [],
    afterBody: [],
    checks: [],
    handlers: answeringStoreOutages(controlOperations(ctx)) as unknown as Record<string, DispatchHandler>,
    facts: () => ({}),
  });
}
