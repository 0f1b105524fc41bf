// The control API at /sandbox: no signature (a local developer tool), otherwise the same
// pipeline as the signed interface, over its own spec (openapi/sandbox-control).
import type { RequestHandler } from "express";
import { captureRawBody, exactBodyAfterValidation, parseJsonBody, refuseOversizedBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { pipeline } from "../pipeline.js";
import { controlOperations } from "../control.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { dispatchOperations, pathNotFound, specValidator } from "./dispatch.js";

export function controlRouter(ctx: SandboxContext): RequestHandler {
  return pipeline(
    [
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
