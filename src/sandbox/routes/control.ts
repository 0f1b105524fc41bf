// The control API at /sandbox: no signature (a local developer tool), otherwise the same
// pipeline as the signed interface, over its own spec (openapi/sandbox-control).
import express, { type Router } from "express";
import { captureRawBody, exactBodyAfterValidation, parseJsonBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { controlOperations } from "../control.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { dispatchOperations, pathNotFound, specValidator } from "./dispatch.js";

export function controlRouter(ctx: SandboxContext): Router {
  const router = express.Router();
  router.use(captureRawBody);
  router.use(requireJson);
  router.use(parseJsonBody({ allowInsecureNotify: false }));
  router.use(installExactJson("control", ctx.logger));
  router.use(specValidator("sandbox-control"));
  router.use(exactBodyAfterValidation);
  router.use(dispatchOperations("control", controlOperations(ctx)));
  router.use(pathNotFound);
  router.use(envelopeErrorHandler("control", ctx.logger));
  return router;
}
