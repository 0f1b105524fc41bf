// The key-based interface at /v1: bearer key (401), then the same body, validator and envelope
// steps as the signed interface, with its own envelope {code, message, data} and code 200.
import express, { type Router } from "express";
import { verifyBearer } from "../auth.js";
import { captureRawBody, exactBodyAfterValidation, parseJsonBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { listAccountMerchants } from "../domain/merchants.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { dispatchOperations, pathNotFound, specValidator } from "./dispatch.js";

export function keyedRouter(ctx: SandboxContext): Router {
  const router = express.Router();
  router.use(captureRawBody);
  router.use(verifyBearer(ctx));
  router.use(requireJson);
  router.use(parseJsonBody({ allowInsecureNotify: false }));
  router.use(installExactJson("keyed", ctx.logger));
  router.use(specValidator("keyed"));
  router.use(exactBodyAfterValidation);
  router.use(
    dispatchOperations("keyed", {
      listAccountMerchants: (call) =>
        listAccountMerchants(ctx, call.res.locals.apiKey as string, { page: call.query.page, limit: call.query.limit, status: call.query.status }),
    }),
  );
  router.use(pathNotFound);
  router.use(envelopeErrorHandler("keyed", ctx.logger));
  return router;
}
