// express-openapi-validator (EOV) over a bundled spec, assembled from EOV's own parts so that a
// request pays only for what the server kit uses. EOV's public middleware
// (`OpenApiValidator.middleware`) with the same options gives the same answers (checked by
// test/server/fast-paths.test.ts) but adds 200-350 µs of CPU to every request, more than a
// whole signed request costs the sandbox, and takes twice as long to start (docs/performance.md,
// "express-openapi-validator: public middleware vs the assembly"; scripts/bench/validator.ts).
//
// The parts: load.ts (the spec loaded and preprocessed), routing.ts (the operation matched),
// request.ts (the request validated), response.ts (an answer's verdict, asked by the answer
// writer), content-type.ts (the Content-Type the validators key by). One synchronous step per
// request instead of the five middlewares EOV chains, each awaiting the loaded spec again; left
// out: path-param registration (the kit routes by operationId), security (validateSecurity is
// false: the signature is checked before) and multipart (a body reaches the validator only as
// application/json). Every internal of EOV it touches is in internals.ts.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { createArrayLimitCheck } from "../array-limits.js";
import type { OpenApiDocument, SpecName } from "../../contract/index.js";
import { requestState, type AnswerCheck } from "../state.js";
import { canonicalContentType } from "./content-type.js";
import { apiDocOf, checkValidatorVersion, prepareSpec } from "./load.js";
import { createRequestValidator, createResponseValidator, openApiMetadataOf } from "./internals.js";
import { requestStep } from "./request.js";
import { responseCheck } from "./response.js";
import { metadataStep } from "./routing.js";

export interface SpecValidator {
  /** Express middleware: matches the operation, validates the request, hooks response validation. */
  handle: RequestHandler;
  /** Settles once the spec is loaded and preprocessed (operation validators compile on first use). */
  ready: Promise<void>;
}

export function createSpecValidator(spec: OpenApiDocument, name?: SpecName): SpecValidator {
  checkValidatorVersion();
  type Steps = { metadata: (req: Request) => void; arrays: (req: Request) => void; request: RequestHandler; response: AnswerCheck };
  let steps: Steps | undefined;
  let failure: unknown;
  const ready = prepareSpec(spec).then(
    ({ built, context, responseApiDoc }) => {
      steps = {
        metadata: metadataStep(context, responseApiDoc),
        arrays: createArrayLimitCheck(apiDocOf(context)),
        // What OpenApiValidator's private requestValidationMiddleware builds, with the fast path.
        request: requestStep(createRequestValidator(context, built), apiDocOf(context)),
        // What OpenApiValidator's private responseValidationMiddleware builds, asked directly.
        response: responseCheck(createResponseValidator(responseApiDoc, context, built)),
      };
    },
    (error: unknown) => {
      failure = error;
    },
  );

  function run(current: Steps, req: Request, res: Response, next: NextFunction): void {
    let passed = false;
    let failed: unknown;
    try {
      current.metadata(req);
      const openapi = openApiMetadataOf(req);
      if (openapi) {
        const state = requestState(res);
        state.operationId = openapi.schema.operationId;
        if (name !== undefined) state.spec = name;
        state.route = openapi.openApiRoute;
        // A copy: the request validator coerces the parameters in place.
        for (const key in openapi.pathParams) {
          state.pathText = { ...openapi.pathParams };
          break;
        }
      }
      canonicalContentType(req);
      // Oversized arrays are refused by their count before the validator lists item errors.
      current.arrays(req);
      current.request(req, res, (error?: unknown) => {
        if (error) failed = error;
        else passed = true;
      });
    } catch (error) {
      return next(error);
    }
    if (failed !== undefined) return next(failed);
    if (!passed) return next(new Error("the request validator neither passed nor failed"));
    requestState(res).answerCheck = current.response;
    next();
  }

  const handle: RequestHandler = (req, res, next) => {
    if (steps) return run(steps, req, res, next);
    void ready.then(() => {
      if (steps) run(steps, req, res, next);
      else next(failure ?? new Error("the OpenAPI validator could not load its spec"));
    });
  };
  return { handle, ready };
}
