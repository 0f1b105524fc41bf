// The control API at /sandbox: no signature (a local developer tool), otherwise the same
// pipeline as the signed interface, over its own spec (openapi/sandbox-control). State-changing
// requests are refused from other origins' pages and must be application/json (site-guard.ts).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { signedError } from "../errors.js";
import { refuseCrossOrigin } from "../site-guard.js";
import { captureRawBody, exactBodyAfterValidation, isJsonContentType, parseJsonBody, refuseOversizedBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { pipeline } from "../pipeline.js";
import { controlOperations } from "../control.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { dispatchOperations, pathNotFound, specValidator } from "./dispatch.js";

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
  return pipeline(
    [
      refuseCrossOrigin,
      requireJsonOnStateChange,
      refuseOversizedBody,
      captureRawBody,
      requireJson,
      parseJsonBody({ allowInsecureNotify: false }),
      installExactJson("control", ctx.logger),
      specValidator("sandbox-control"),
      exactBodyAfterValidation,
      dispatchOperations("control", controlOperations(ctx)),
      pathNotFound,
    ],
    envelopeErrorHandler("control", ctx.logger),
  );
}
