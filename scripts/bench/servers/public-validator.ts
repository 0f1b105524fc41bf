// The sandbox's validator built from express-openapi-validator's public entry point only:
// `OpenApiValidator.middleware(options)`, mounted with router.use() as EOV's README and examples
// do, with the same options as src/server/validator.ts (validatorOptions). It exports what that
// module exports to the sandbox (createSpecValidator), so the benchmark can run the real sandbox
// with this module in its place (servers/validator-sandbox.ts) and compare the two.
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { createArrayLimitCheck } from "../../../src/server/array-limits.js";
import type { OpenApiDocument } from "../../../src/contract/index.js";
import { validatorOptions, type SpecValidator } from "../../../src/server/eov/index.js";

export type { SpecValidator };

export function createSpecValidator(spec: OpenApiDocument): SpecValidator {
  const middlewares = OpenApiValidator.middleware(validatorOptions(spec));
  // Oversized arrays are refused by their count before the request validator lists item
  // errors, as in the sandbox: right after EOV's metadata step, which finds the operation.
  const arrays = createArrayLimitCheck(spec);
  const afterMetadata = middlewares.findIndex((middleware) => middleware.name === "metadataMiddleware") + 1;
  if (afterMetadata === 0) throw new Error("express-openapi-validator's middleware list has no metadataMiddleware");
  middlewares.splice(afterMetadata, 0, (req, _res, next) => {
    arrays(req);
    next();
  });
  const router = express.Router();
  router.use(middlewares);
  // The public API has no readiness signal: loading started in middleware() above, and the
  // first request waits for it inside EOV.
  return { handle: router, ready: Promise.resolve() };
}
