// The key-based interface at /v1: bearer key (401, before the body is read), then the same body, validator and envelope
// steps as the signed interface, with its own envelope {code, message, data} and code 200.
import type { RequestHandler } from "express";
import { verifyBearer } from "../auth.js";
import { captureRawBody, exactBodyAfterValidation, parseJsonBody, refuseOversizedBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { pipeline } from "../pipeline.js";
import { listAccountMerchants } from "../domain/merchants.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { dispatchOperations, pathNotFound, specValidator } from "./dispatch.js";

export function keyedRouter(ctx: SandboxContext): RequestHandler {
  return pipeline(
    [
      refuseOversizedBody,
      verifyBearer(ctx),
      captureRawBody,
      requireJson,
      parseJsonBody({ allowInsecureNotify: false }),
      installExactJson("keyed", ctx.logger),
      specValidator("keyed"),
      exactBodyAfterValidation,
      dispatchOperations("keyed", {
        listAccountMerchants: (call) =>
          listAccountMerchants(ctx, call.res.locals.apiKey as string, { page: call.query.page, limit: call.query.limit, status: call.query.status }),
      }),
      pathNotFound,
    ],
    envelopeErrorHandler("keyed", ctx.logger),
  );
}
