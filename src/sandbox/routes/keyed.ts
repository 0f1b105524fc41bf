// The key-based interface at /v1: the server kit's keyed router over the sandbox's accounts.
import type { RequestHandler } from "express";
import { createKeyedRouter } from "../../server/index.js";
import type { SandboxContext } from "../context.js";
import { listAccountMerchants } from "../domain/merchants.js";
import { faultStep } from "../faults/step.js";
import { answeringStoreOutagesIn } from "../store-guard.js";

export function keyedRouter(ctx: SandboxContext): RequestHandler {
  return createKeyedRouter({
    handlers: {
      listAccountMerchants: (input) => listAccountMerchants(ctx, input.apiKey, input.query),
    },
    apiKeys: (apiKey) => ctx.records.apiKey(apiKey),
    rateLimiter: ctx.rateLimiter,
    logger: ctx.logger,
    checks: [answeringStoreOutagesIn(faultStep(ctx, "keyed"), "keyed")],
  });
}
